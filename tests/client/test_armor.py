"""Armoured moves survive email: quoting, HTML, forwarding, re-wrapping."""

import html
import json
import quopri
import secrets

import pytest

from client.armor import BEGIN, END, ArmorError, decode_block, encode_block, extract_blocks
from client.signing import signed_move


def a_move(game="g7hk2", move="road 14-22 <&> \"é\"", seq=3):
    body = signed_move(secrets.token_bytes(32), game, seq, "ab" * 32, "red", move)
    return {"game": game, **body}


def test_round_trip_and_shape():
    move = a_move()
    text = encode_block(**move)
    lines = text.splitlines()
    assert lines[0] == BEGIN and lines[-1] == END
    assert all(0 < len(line) <= 64 for line in lines[1:-1])
    assert all(len(line) == 64 for line in lines[1:-2])
    assert extract_blocks(text) == [move]
    assert decode_block(text[len(BEGIN):-len(END) - 1]) == move


def test_several_blocks_in_order_without_duplicates():
    one, two = a_move(move="roll"), a_move(move="hold", seq=4)
    text = "Hi Bob,\n\n" + encode_block(**one) + "\nand then\n\n" + encode_block(**two) + \
        "\nBest,\nAnn\n\n> earlier:\n> " + encode_block(**one).replace("\n", "\n> ")
    assert extract_blocks(text) == [one, two]


@pytest.mark.parametrize("prefix", ["> ", ">", ">> ", "> > ", "    ", "\t| "])
def test_quoted_reply(prefix):
    move = a_move()
    quoted = "On Monday Ann wrote:\n" + "".join(prefix + line + "\n"
                                                for line in encode_block(**move).splitlines())
    assert extract_blocks(quoted) == [move]


def test_html_mail():
    move = a_move()
    block = encode_block(**move)
    body = "<br>\n".join(html.escape(line) for line in block.splitlines())
    message = f"<html><body><div dir=\"ltr\">My move:<br>{body}</div>" \
              f"<blockquote class=\"gmail_quote\">old</blockquote></body></html>"
    assert extract_blocks(message) == [move]
    # one paragraph per line, entities for the plus and slash signs
    paras = "".join(f"<p style=\"margin:0\">{line.replace('+', '&#43;').replace('/', '&#x2F;')}"
                    "</p>" for line in block.splitlines())
    assert extract_blocks(paras) == [move]
    # HTML with the lines run together (no line breaks kept at all)
    assert extract_blocks("<div>" + "".join(block.splitlines()) + "</div>") == [move]


def test_forwarded_and_quoted_printable():
    move = a_move()
    block = encode_block(**move)
    forwarded = ("---------- Forwarded message ---------\nFrom: Ann <ann@example.org>\n"
                 "Subject: my move\n\n" + block)
    assert extract_blocks(forwarded) == [move]
    qp = quopri.encodestring(("x" * 70 + "\n" + block).encode()).decode()
    assert extract_blocks(qp) == [move]
    # a quoted-printable body that was then quoted in a reply
    assert extract_blocks("> " + qp.replace("\n", "\n> ")) == [move]


def test_rewrapped_lines():
    move = a_move()
    b64 = "".join(encode_block(**move).splitlines()[1:-1])
    rewrapped = BEGIN + "\n" + "\n".join(b64[i:i + 40] for i in range(0, len(b64), 40)) + \
        "\n" + END
    assert extract_blocks(rewrapped) == [move]
    assert extract_blocks(rewrapped.replace("\n", "\r\n")) == [move]


def test_broken_blocks_are_skipped_and_reported():
    move = a_move()
    good = encode_block(**move)
    errors = []
    damaged = good[:80] + "!!" + good[90:]
    assert extract_blocks(f"{BEGIN}\nnot base64 at all\n{END}\n" + damaged + good,
                          errors) == [move]
    assert len(errors) == 2 and errors[0].startswith("block 1:")
    with pytest.raises(ArmorError):
        decode_block("eyJhIjoxfQ==")  # {"a":1}: no game, envelope, signature


def test_block_for_another_game_is_refused():
    move = a_move(game="g1")
    move["game"] = "g2"
    with pytest.raises(ArmorError, match="another game"):
        decode_block(encode_block(**move)[len(BEGIN):-len(END) - 1])
    assert extract_blocks(encode_block(**move)) == []


def test_no_blocks():
    assert extract_blocks("") == [] and extract_blocks("just words") == []
    assert extract_blocks(b"bytes too " + encode_block(**a_move()).encode())[0]["game"] == "g7hk2"
    assert json.loads(extract_blocks(encode_block(**a_move()))[0]["envelope"])["seq"] == 3
