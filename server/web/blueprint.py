"""The pages' blueprint and their error page (the page modules register their routes on
``bp``; server/web/__init__.py registers it on the app)."""

from urllib.parse import urlsplit

from flask import Blueprint, render_template, request

bp = Blueprint("web", __name__, template_folder="templates", static_folder="static",
               static_url_path="/assets")


@bp.before_request
def _refuse_other_origins():
    """A page's POST (sign out, an archive upload) comes from our own pages only.

    The session cookie is SameSite=Strict, but "site" ignores the port: a page on another
    port of the same host (another origin) still sends it, and its form could sign the
    reader out.  The browser says where a request came from (``Sec-Fetch-Site``; else
    ``Origin``, whose host must be ours).
    """
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    site = request.headers.get("Sec-Fetch-Site")
    origin = request.headers.get("Origin")
    if site is not None:
        refused = site not in ("same-origin", "none")
    else:
        refused = origin is not None and urlsplit(origin).netloc != request.host
    if refused:
        from ..http.errors import fail
        fail(403, "cross_origin", "this form was sent from another site's page, so it was "
             "not acted on; use the form on this site's own page")
    return None


def error_page(error):
    """An HTML page for an HTTP error (an ApiError keeps its one-sentence message)."""
    status = getattr(error, "code", None) or 500
    message = getattr(error, "message", None) or getattr(error, "description", None) or ""
    if status >= 500:
        message = "Something went wrong on the server. Please try again in a moment."
    titles = {400: "Bad request", 401: "Not signed in", 403: "Not allowed", 404: "Not found",
              405: "Not allowed", 409: "Not possible now", 410: "Link no longer valid",
              413: "Too large", 422: "Refused", 429: "Too many requests"}
    title = titles.get(status, "Error")
    body = render_template("error.html", status=status, title=title, message=message)
    headers = dict(getattr(error, "extra_headers", None) or {})
    allowed = getattr(error, "valid_methods", None)
    if status == 405 and allowed:
        headers.setdefault("Allow", ", ".join(allowed))  # a 405 names the allowed methods
    return body, status, headers
