"""A small SVG writer for the games' board drawings (pure: strings in, a string out).

Every game draws its board from a view (never the state) with these helpers, so escaping,
titles and the document frame are written once::

    >>> doc = Drawing(100, 50, title="A board")
    >>> _ = doc.add(circle(10, 10, 5, cls="robber", title="the robber, on hex F"))
    >>> doc.render().startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    True

Conventions: every piece carries a ``<title>`` (the accessible name and the hover text),
a ``class`` naming what it is (``hex``, ``road``, ``settlement`` ...) and, where the notation
names it, a ``data-place`` attribute with the notation's own name (``"14"``, ``"14-19"``,
``"F"``), so that a page can find a place by the text a player types.  No script, no
external reference, no inline event handler: the page's Content-Security-Policy forbids them.
"""

import re
from html import escape

# characters XML 1.0 forbids (C0 controls but tab/newline/return, lone surrogates, U+FFFE/F)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def esc(text):
    """``text`` escaped for an SVG text node or a double-quoted attribute; characters XML
    cannot hold are dropped, so the document always parses."""
    return escape(_NOT_XML.sub("", str(text)), quote=True)


def as_dict(value):
    """``value`` if it is a dict, else ``{}``: drawings read views that may lack a field."""
    return value if isinstance(value, dict) else {}


def as_list(value):
    """``value`` if it is a list or tuple, else ``[]``."""
    return value if isinstance(value, (list, tuple)) else []


def as_int(value):
    """``value`` if it is an int (not a bool), else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def css_token(word):
    """``word`` reduced to letters and digits, safe inside a class name: ``seat-<token>``."""
    return "".join(ch for ch in str(word) if ch.isalnum())


def _num(value):
    if isinstance(value, float):
        text = f"{value:.1f}".rstrip("0").rstrip(".")
        return text if text not in ("-0", "") else "0"
    return str(value)


def _attrs(attrs):
    out = []
    for key, value in attrs.items():
        if value is None or value is False:
            continue
        name = "class" if key in ("cls", "class_") else key.replace("_", "-")
        out.append(f' {name}="{esc(_num(value))}"')
    return "".join(out)


def element(tag, attrs=None, children=(), title=None, text=None):
    """One element as a string: ``attrs`` (``cls`` -> ``class``, ``data_place`` ->
    ``data-place``), an optional ``<title>`` first, then ``text`` (escaped) or ``children``
    (strings already rendered)."""
    inner = []
    if title is not None:
        inner.append(f"<title>{esc(title)}</title>")
    if text is not None:
        inner.append(esc(text))
    inner.extend(children)
    if not inner:
        return f"<{tag}{_attrs(attrs or {})}/>"
    return f"<{tag}{_attrs(attrs or {})}>{''.join(inner)}</{tag}>"


def group(children, title=None, **attrs):
    return element("g", attrs, children, title=title)


def circle(cx, cy, r, title=None, **attrs):
    return element("circle", {"cx": cx, "cy": cy, "r": r, **attrs}, title=title)


def rect(x, y, width, height, title=None, **attrs):
    return element("rect", {"x": x, "y": y, "width": width, "height": height, **attrs},
                   title=title)


def line(x1, y1, x2, y2, title=None, **attrs):
    return element("line", {"x1": x1, "y1": y1, "x2": x2, "y2": y2, **attrs}, title=title)


def polygon(points, title=None, **attrs):
    pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
    return element("polygon", {"points": pts, **attrs}, title=title)


def polyline(points, title=None, **attrs):
    pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in points)
    return element("polyline", {"points": pts, **attrs}, title=title)


def path(d, title=None, **attrs):
    return element("path", {"d": d, **attrs}, title=title)


def text(x, y, content, title=None, **attrs):
    return element("text", {"x": x, "y": y, **attrs}, title=title, text=content)


class Drawing:
    """An SVG document: a viewBox of ``width`` x ``height`` user units that scales to its box;
    ``attrs`` (e.g. ``font_family="sans-serif"``) go on the root, inherited by every piece."""

    def __init__(self, width, height, title=None, cls="board", **attrs):
        self.width, self.height, self.title, self.cls = width, height, title, cls
        self.attrs = attrs      # presentation attributes every piece inherits (font_family)
        self.parts = []

    def add(self, *parts):
        self.parts.extend(parts)
        return self

    def render(self):
        head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_num(self.width)} '
                f'{_num(self.height)}" class="{esc(self.cls)}"{_attrs(self.attrs)} role="img"')
        inner = [f"<title>{esc(self.title)}</title>"] if self.title else []
        label = f' aria-label="{esc(self.title)}"' if self.title else ""
        return head + label + ">" + "".join(inner + self.parts) + "</svg>"
