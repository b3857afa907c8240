"""Checks every board drawing must pass (used by the games' test_*_svg.py files)."""

import json
import re
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def parse(svg):
    """The SVG parsed as XML (fails the test if it is not well-formed)."""
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    assert root.get("viewBox")
    return root


def parents(root):
    return {child: parent for parent in root.iter() for child in parent}


def classes(el):
    return (el.get("class") or "").split()


def pieces(root, cls):
    """Elements whose class list holds ``cls``."""
    return [el for el in root.iter() if cls in classes(el)]


def title_of(el, up):
    """The ``<title>`` text of ``el`` or of the nearest ancestor that has one."""
    while el is not None:
        t = el.find(NS + "title")
        if t is not None and (t.text or "").strip():
            return t.text
        el = up.get(el)
    return None


def own_title(el):
    t = el.find(NS + "title")
    return t.text if t is not None else None


def check_safe(svg):
    """No script, no event handler, no external reference, no stray markup."""
    root = parse(svg)
    assert "<script" not in svg.lower()
    for el in root.iter():
        tag = el.tag.replace(NS, "")
        assert tag not in ("script", "foreignObject", "a", "image", "use", "iframe",
                           "style"), tag
        for name, value in el.attrib.items():
            local = name.split("}")[-1].lower()
            assert not local.startswith("on"), (tag, name)
            assert "href" not in local, (tag, name)
            assert local != "style", (tag, name)      # inline styles: the CSP forbids them
            assert "javascript:" not in value.lower()
            assert "url(" not in value.lower()
    assert not re.search(r"\son\w+\s*=", svg)
    return root


def check_pieces_titled(root, piece_classes):
    """Every element of the given classes has a title (its own or its place's), and a
    data-place where it stands on a named place."""
    up = parents(root)
    for cls in piece_classes:
        for el in pieces(root, cls):
            assert title_of(el, up), (cls, el.attrib)


HOSTILE = (None, [], {}, ["x", 1], {"a": [1]}, -1, 10 ** 12, True, "", "\x00\x1b<&>\"'",
           '<script>alert(1)</script>', "\u202e\ufffe\ud800")


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, prefix + (i,))


def _replaced(view, path, value):
    out = json.loads(json.dumps(view))
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def hostile_views(view, rng, n):
    """``n`` copies of ``view`` with one field (any depth) replaced by a hostile value:
    wrong types, control characters, markup, huge numbers."""
    paths = [p for p in _paths(view) if p]
    for _ in range(n):
        path = paths[rng.randbelow(len(paths))]
        yield _replaced(view, path, HOSTILE[rng.randbelow(len(HOSTILE))])
