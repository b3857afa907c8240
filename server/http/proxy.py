"""Which ``X-Forwarded-*`` headers the app believes: only those a trusted proxy set.

``PBEM_PROXY_HOPS=1`` used to make werkzeug's ProxyFix believe the headers of every request,
and the Procfile's processes listened on every address: whoever reached a port directly
could send ``X-Forwarded-For: <anyone>``, spend no address limit of their own, lock any
chosen address out and hold streams past the per-address cap.  Now the headers are believed
only when the connection comes from an address in ``PBEM_TRUSTED_PROXIES`` (comma-separated
addresses or networks; default loopback, where the shipped nginx connects from); any other
request is served with the address it really came from.  ``*`` trusts every peer (a platform
whose router reaches the app from addresses nobody can list, and the app's port from nowhere
else).
"""

import ipaddress

from werkzeug.middleware.proxy_fix import ProxyFix

DEFAULT_TRUSTED = "127.0.0.1/32,::1/128"


def parse_networks(text):
    """The networks ``text`` names, or None for ``*``; a ValueError names a bad entry."""
    text = (text or "").strip() or DEFAULT_TRUSTED
    if text == "*":
        return None
    networks = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"PBEM_TRUSTED_PROXIES: {item!r} is not an address or a network "
                             f"(write them comma-separated, as 10.0.0.0/8,127.0.0.1)") from None
    return tuple(networks)


class TrustedProxyFix:
    """ProxyFix for requests from a trusted proxy; every other request as it came."""

    def __init__(self, app, hops, trusted):
        self.app = app
        self.fixed = ProxyFix(app, x_for=hops, x_proto=hops, x_host=hops)
        self.networks = parse_networks(trusted)

    def trusts(self, peer):
        if self.networks is None:
            return True
        try:
            address = ipaddress.ip_address((peer or "").split("%", 1)[0])
        except ValueError:
            return False
        if address.version == 6 and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.networks)

    def __call__(self, environ, start_response):
        if self.trusts(environ.get("REMOTE_ADDR")):
            return self.fixed(environ, start_response)
        return self.app(environ, start_response)
