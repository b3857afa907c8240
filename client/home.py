"""The player's home directory: key, config, pinned server keys, last heads, cache, outbox.

Layout (every file written atomically, mode 0600; the directory 0700)::

    HOME/key.ed25519     the private key as hex (never printed, never sent)
    HOME/config.json     {"name", "email", "tz"}
    HOME/servers.json    {server url: {"public_key": hex, "heads": {game: {length, hash}}}}
    HOME/cache/<server>/<game>.json   the last view response fetched (for --offline)
    HOME/outbox.json     [{"server", "game", "seat", "move", "envelope", "signature"}]
    HOME/games.json      {server url: {game id: {"type", "status"}}}: the games seen (completion)
    HOME/device.json     in a device home only (``pbem device import``): {"private_key": hex,
                         "delegation": {...}, "server": url}; the home then has no key.ed25519
                         and signs requests and moves with the device key (see DeviceKey)
"""

import json
import os
import re


class HomeError(Exception):
    """A home directory that cannot be read or written."""


class DeviceKey(bytes):
    """A device home's raw private key (32 bytes), with its ``delegation`` (the dict its
    player's main key signed) and ``public_key`` (hex).  ``client.signing`` then adds the
    delegation to each envelope and the X-Pbem-Device header to each request."""

    def __new__(cls, raw, delegation):
        obj = super().__new__(cls, raw)
        obj.delegation = dict(delegation)
        obj.public_key = delegation["device_key"]
        return obj


def default_home():
    import platformdirs
    return platformdirs.user_data_dir("pbem", appauthor=False)


def _temporary(directory):
    """A new file in ``directory`` opened for writing (0600): (fd, path).  What
    ``tempfile.mkstemp`` does, without importing tempfile (with shutil, bz2 and lzma behind
    it) into every command that saves the home."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = os.path.join(directory, f".tmp-{os.urandom(6).hex()}")
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {directory}")


def atomic_write(path, data, mode=0o600):
    """Write ``data`` (bytes or str) to ``path`` atomically with ``mode``."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, mode=0o700, exist_ok=True)
    fd, tmp = _temporary(directory)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _server_slug(url):
    return re.sub(r"[^A-Za-z0-9._-]+", "_", url.rstrip("/").split("://", 1)[-1])[:100]


class Home:
    """Local files of one player.  Nothing here talks to a server."""

    KEY = "key.ed25519"

    def __init__(self, path):
        self.path = os.path.abspath(os.path.expanduser(path))

    def file(self, *parts):
        return os.path.join(self.path, *parts)

    def _read_json(self, name, default, kind=None):
        """The JSON in ``name`` (``default`` when there is none); HomeError when it cannot be
        read or is not a ``kind`` (default: the type of ``default``)."""
        try:
            with open(self.file(name), encoding="utf-8") as fh:
                obj = json.load(fh)
        except FileNotFoundError:
            return default
        except (OSError, ValueError) as exc:
            raise HomeError(f"cannot read {self.file(name)}: {exc}") from None
        kind = kind or (type(default) if default is not None else None)
        if kind is not None and not isinstance(obj, kind):
            words = {dict: "an object", list: "a list"}
            self._damaged(name, f"it holds {words.get(type(obj), 'a ' + type(obj).__name__)} "
                                f"where {words.get(kind, 'a ' + kind.__name__)} belongs")
        return obj

    def _damaged(self, name, why):
        raise HomeError(f"{self.file(name)} is damaged ({why}); move it away and try again")

    def _write_json(self, name, obj):
        try:
            os.makedirs(self.path, mode=0o700, exist_ok=True)
            atomic_write(self.file(name), json.dumps(obj, indent=1, sort_keys=True) + "\n")
        except OSError as exc:
            raise HomeError(f"cannot write {self.file(name)}: {exc.strerror or exc}") from None

    # --- the key ------------------------------------------------------------------

    def has_key(self):
        """True when the home signs: its own main key, or a device key (``device.json``)."""
        return os.path.exists(self.file(self.KEY)) or os.path.exists(self.file(self.DEVICE))

    def has_main_key(self):
        return os.path.exists(self.file(self.KEY))

    def private_key(self):
        """The raw 32-byte private key; HomeError when there is none.  In a device home
        (no key.ed25519, a device.json): the device's key, a :class:`DeviceKey`."""
        if not self.has_main_key():
            device = self.device()
            if device is not None:
                return DeviceKey(bytes.fromhex(device["private_key"]), device["delegation"])
        try:
            with open(self.file(self.KEY), encoding="ascii") as fh:
                text = fh.read().strip()
        except FileNotFoundError:
            raise HomeError(f"there is no key in {self.path}: run pbem register NAME "
                            "first") from None
        except OSError as exc:
            raise HomeError(f"cannot read the key in {self.path}: {exc.strerror}") from None
        try:
            key = bytes.fromhex(text)
        except ValueError:
            key = b""
        if len(key) != 32:
            raise HomeError(f"the key file {self.file(self.KEY)} is damaged")
        return key

    def create_key(self, dry=False):
        """Create a new private key (mode 0600) unless one exists; return the key.  ``dry``:
        only check that one may be created here (HomeError in a device home)."""
        if self.has_main_key():
            return self.private_key()
        if os.path.exists(self.file(self.DEVICE)):
            raise HomeError(f"{self.path} is a device home (pbem device import): it signs with "
                            "a delegated key and registers no player; use another --home")
        if dry:
            return None
        return self.save_key(os.urandom(32))

    def save_key(self, key):
        """Write ``key`` (32 private bytes) as this home's main key (mode 0600)."""
        try:
            atomic_write(self.file(self.KEY), key.hex() + "\n", mode=0o600)
        except OSError as exc:
            raise HomeError(f"cannot write the key in {self.path}: {exc.strerror}") from None
        return key

    # --- a device home: a delegated key instead of a main key --------------------------

    DEVICE = "device.json"

    def device(self):
        """{"private_key", "delegation", "server"} of a device home, else None."""
        found = self._read_json(self.DEVICE, None, kind=dict)
        if found is None:
            return None
        from shared.delegation import DelegationError, check_shape
        key = found.get("private_key")
        if not isinstance(key, str) or not re.fullmatch(r"[0-9a-f]{64}", key):
            self._damaged(self.DEVICE, "its private key is not 64 hex digits")
        try:
            check_shape(found.get("delegation"))
        except DelegationError as exc:
            self._damaged(self.DEVICE, exc.message)
        return found

    def save_device(self, private_key, delegation, server):
        """Make this home a device home of ``delegation``'s player (``pbem device import``)."""
        if self.has_main_key():
            raise HomeError(f"{self.path} holds a main key of its own: import a device into "
                            "a new home (--home DIR)")
        try:
            os.makedirs(self.path, mode=0o700, exist_ok=True)
            atomic_write(self.file(self.DEVICE), json.dumps(
                {"private_key": private_key.hex(), "delegation": delegation, "server": server},
                indent=1, sort_keys=True) + "\n", mode=0o600)
        except OSError as exc:
            raise HomeError(f"cannot write {self.file(self.DEVICE)}: {exc.strerror or exc}") \
                from None

    # --- config ---------------------------------------------------------------------

    def config(self):
        return self._read_json("config.json", {})

    def save_config(self, config):
        self._write_json("config.json", config)

    def name(self):
        name = self.config().get("name")
        if name is not None and not isinstance(name, str):
            self._damaged("config.json", "the name is not a text")
        if not name:
            raise HomeError(f"no player is registered in {self.path}: run pbem register NAME "
                            "first")
        return name

    # --- servers: pinned key and last seen heads --------------------------------------

    def _servers(self):
        servers = self._read_json("servers.json", {})
        for url, entry in servers.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("heads", {}), dict):
                self._damaged("servers.json", f"the entry of {url} is not an object")
        return servers

    def pinned_key(self, server):
        return self._servers().get(server.rstrip("/"), {}).get("public_key")

    def pin_key(self, server, public_key):
        servers = self._servers()
        servers.setdefault(server.rstrip("/"), {})["public_key"] = public_key
        self._write_json("servers.json", servers)

    def last_head(self, server, game):
        return self._servers().get(server.rstrip("/"), {}).get("heads", {}).get(game)

    def remember_head(self, server, game, head):
        servers = self._servers()
        entry = servers.setdefault(server.rstrip("/"), {})
        entry.setdefault("heads", {})[game] = {"length": head["length"], "hash": head["hash"]}
        self._write_json("servers.json", servers)

    # --- cached views (what --offline signs against) ----------------------------------

    def _cache_name(self, server, game):
        return os.path.join("cache", _server_slug(server), re.sub(r"[^A-Za-z0-9]", "_", game)
                            + ".json")

    def cached_view(self, server, game):
        """The view response fetched last for ``game`` (None when there is none)."""
        name = self._cache_name(server, game)
        resp = self._read_json(name, None, kind=dict)
        if resp is not None and not (isinstance(resp.get("game"), dict)
                                     and isinstance(resp.get("next_seq"), int)
                                     and isinstance(resp.get("prev"), str)
                                     and isinstance(resp.get("view"), (dict, type(None)))):
            self._damaged(name, "it is not a view the server sent")
        return resp

    def cache_view(self, server, game, response):
        self._write_json(self._cache_name(server, game), response)

    # --- games seen (for shell completion) ---------------------------------------------

    def known_games(self, server):
        """{game id: {"type", "status"}} of the games this home has seen on ``server``."""
        games = self._read_json("games.json", {})
        mine = games.get(server.rstrip("/"), {}) if isinstance(games, dict) else {}
        return mine if isinstance(mine, dict) else {}

    def remember_games(self, server, games):
        """Remember the ids, types and states of ``games`` (dicts as the server sends them)."""
        seen = {g["id"]: {"type": g.get("type"), "status": g.get("status")}
                for g in games if isinstance(g, dict) and isinstance(g.get("id"), str)}
        if not seen:
            return
        try:
            everything = self._read_json("games.json", {})
        except HomeError:
            everything = {}
        if not isinstance(everything, dict):
            everything = {}
        mine = everything.setdefault(server.rstrip("/"), {})
        if all(mine.get(k) == v for k, v in seen.items()):
            return
        mine.update(seen)
        self._write_json("games.json", everything)

    # --- outbox ----------------------------------------------------------------------

    OUTBOX_FIELDS = ("game", "seat", "move", "envelope", "signature")

    def outbox(self):
        """The queued moves, oldest first (HomeError when the file is damaged)."""
        items = self._read_json("outbox.json", [])
        for i, item in enumerate(items, 1):
            if not isinstance(item, dict) or not all(isinstance(item.get(k), str)
                                                     for k in self.OUTBOX_FIELDS):
                self._damaged("outbox.json", f"queued move {i} is not a signed move")
        return items

    def save_outbox(self, items):
        self._write_json("outbox.json", items)
