"""Notice channels in each service's own format, checked against a receiver on loopback.

Each format's body is held against the service's documented shape and limits (Discord's
execute webhook, Slack's incoming webhook blocks, Matrix's m.room.message, Telegram's
sendMessage); pbem's own JSON is verified with the Standard Webhooks library's verifier; a
private address is refused unless the operator allows it.
"""

import json
import re
import time
from datetime import datetime, timezone

import pytest

from server.workers.channels import (
    DISCORD_CONTENT,
    DISCORD_DESCRIPTION,
    KINDS,
    SLACK_SECTION,
    TELEGRAM_TEXT,
    ChannelError,
    PublicNotice,
    build_request,
    check_target,
    new_secret,
    public_target,
    send,
)
from tests.helpers.receiver import Receiver


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


NOTICE = PublicNotice(
    kind="turn", headline="Your move in The Settlers of Zarahemla k7m2q9xa3b (you play red)",
    game_id="k7m2q9xa3b", title="The Settlers of Zarahemla",
    lines=("blue placed a road on 33-38", "red owes: roll the dice"), deadline=1_800_086_400,
    url="https://pbem.example/g/k7m2q9xa3b", seq=41)

DISCORD_ID, SLACK_ID, MATRIX_ID = "123456789012345678", "U012ABCDEF", "@ann:example.org"


def _targets(url):
    return {
        "discord": {"url": url + "/api/webhooks/1/abc", "mention": DISCORD_ID},
        "slack": {"url": url + "/services/T/B/x", "mention": SLACK_ID},
        "matrix": {"homeserver": url, "room": "!room:example.org", "token": "syt_secret_token",
                   "mention": MATRIX_ID},
        "telegram": {"token": "123456:" + "A" * 30, "chat_id": "987654"},
        "json": {"url": url + "/hook"},
    }


def _deliver(kind, target, receiver, notice=NOTICE, msg_id="notice-7", ts=None):
    checked = check_target(kind, target, allow_private=True)
    req = build_request(kind, checked, notice, msg_id=msg_id, timestamp=ts or int(time.time()),
                        telegram_api=receiver.url)
    assert send(req, allow_private=True) == 200
    got = receiver.requests[-1]
    return checked, got, json.loads(got["body"])


def test_discord_body_mentions_only_the_player_and_fits_discords_limits(receiver):
    hostile = PublicNotice(kind="move", headline="@everyone look <@&999> [x](https://evil)",
                           lines=("@here " + "x" * 5000,), deadline=1_800_000_000)
    for notice in (NOTICE, hostile):
        _, got, body = _deliver("discord", _targets(receiver.url)["discord"], receiver, notice)
        assert got["method"] == "POST" and got["path"] == "/api/webhooks/1/abc"
        assert body["allowed_mentions"] == {"parse": [], "users": [DISCORD_ID]}
        assert body["content"].startswith(f"<@{DISCORD_ID}> ")
        assert len(body["content"]) <= DISCORD_CONTENT
        embed, = body["embeds"]
        assert len(embed["description"]) <= DISCORD_DESCRIPTION and len(embed["title"]) <= 256
        assert embed["fields"][0]["value"].startswith("<t:")  # shown in each reader's zone
    # what a player typed cannot become a mention or a masked link
    assert not re.search(r"(?<!\\)@everyone", body["content"])
    assert "\\@everyone" in body["content"]
    assert "<@&999>" not in body["content"] and "[x](" not in body["content"]


def test_slack_body_is_text_and_blocks_with_escaped_player_text(receiver):
    hostile = PublicNotice(kind="move", headline="<!everyone> & <https://evil|click>",
                           lines=("y" * 5000,), deadline=1_800_000_000)
    _, got, body = _deliver("slack", _targets(receiver.url)["slack"], receiver)
    assert set(body) == {"text", "blocks"} and body["text"].startswith(f"<@{SLACK_ID}> ")
    section, context = body["blocks"]
    assert section["type"] == "section" and section["text"]["type"] == "mrkdwn"
    assert context["type"] == "context"
    assert context["elements"][0]["text"].startswith("Deadline: <!date^1800086400^")
    _, _, body = _deliver("slack", _targets(receiver.url)["slack"], receiver, hostile)
    text = body["blocks"][0]["text"]["text"]
    assert len(text) <= SLACK_SECTION
    assert "<!everyone>" not in text and "&lt;!everyone&gt; &amp;" in text
    assert "<https://evil" not in body["text"]


def test_matrix_message_is_put_with_the_token_and_mentions_only_the_player(receiver):
    checked, got, body = _deliver("matrix", _targets(receiver.url)["matrix"], receiver,
                                  msg_id="notice-9")
    assert got["method"] == "PUT"
    assert got["path"] == "/_matrix/client/v3/rooms/%21room%3Aexample.org/send/m.room.message/" \
                          "notice-9"
    assert got["headers"]["Authorization"] == "Bearer syt_secret_token"
    assert body["msgtype"] == "m.text" and body["format"] == "org.matrix.custom.html"
    assert body["m.mentions"] == {"user_ids": [MATRIX_ID]}  # never "room": true
    hostile = PublicNotice(kind="move", headline="<script>alert(1)</script> @room")
    _, _, body = _deliver("matrix", checked, receiver, hostile)
    assert "<script>" not in body["formatted_body"] and "room" not in body["m.mentions"]


def test_telegram_send_message_is_plain_text_within_its_limit(receiver):
    long = PublicNotice(kind="turn", headline="h", lines=("z" * 5000,))
    _, got, body = _deliver("telegram", _targets(receiver.url)["telegram"], receiver, long)
    assert got["path"] == "/bot123456:" + "A" * 30 + "/sendMessage"
    assert body["chat_id"] == "987654" and "parse_mode" not in body
    assert 1 <= len(body["text"]) <= TELEGRAM_TEXT


def test_json_webhook_verifies_with_the_standard_webhooks_library(receiver):
    from standardwebhooks.webhooks import Webhook, WebhookVerificationError
    checked, got, body = _deliver("json", _targets(receiver.url)["json"], receiver,
                                  msg_id="notice-11")
    assert checked["secret"].startswith("whsec_")
    headers = {k.lower(): v for k, v in got["headers"].items()}
    assert headers["webhook-id"] == "notice-11"
    verified = Webhook(checked["secret"]).verify(got["body"], headers)
    assert verified == body and body["type"] == "pbem.turn"
    assert body["data"]["game"] == "k7m2q9xa3b" and body["data"]["deadline"] == 1_800_086_400
    # another secret, or a changed body, does not verify
    with pytest.raises(WebhookVerificationError):
        Webhook(new_secret()).verify(got["body"], headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(checked["secret"]).verify(got["body"].replace(b"k7m2", b"k7m3"), headers)
    # the timestamp the signature covers is the attempt's
    assert abs(int(headers["webhook-timestamp"]) - datetime.now(timezone.utc).timestamp()) < 600


def test_a_private_address_is_refused_unless_the_operator_allows_it(receiver):
    for kind, target in _targets(receiver.url).items():
        # plain http to a chat service: refused at once (the Bot API's address is not the
        # player's; pbem's own signed body may go over plain http, and is refused on connect)
        if kind not in ("telegram", "json"):
            with pytest.raises(ChannelError):
                check_target(kind, target)
        checked = check_target(kind, target, allow_private=True)
        req = build_request(kind, checked, NOTICE, msg_id="n", timestamp=1_800_000_000,
                            telegram_api=receiver.url)
        with pytest.raises(ChannelError) as refused:  # and, were it set, refused on connect
            send(req, allow_private=False)
        assert refused.value.permanent and "refused destination 127.0.0.1" in \
            refused.value.message
    assert receiver.requests == []


@pytest.mark.parametrize("status, permanent", [(404, True), (401, True), (410, True),
                                               (429, False), (500, False), (503, False)])
def test_failures_say_whether_retrying_can_help(status, permanent):
    r = Receiver(status=status, headers={"Retry-After": "120"} if status == 429 else None)
    try:
        checked = check_target("discord", _targets(r.url)["discord"], allow_private=True)
        req = build_request("discord", checked, NOTICE, msg_id="n", timestamp=1)
        with pytest.raises(ChannelError) as failed:
            send(req, allow_private=True)
        assert failed.value.permanent is permanent
        assert failed.value.retry_after == (120 if status == 429 else None)
        assert str(status) in failed.value.message
    finally:
        r.close()


@pytest.mark.parametrize("kind, target, words", [
    ("discord", {"url": "https://evil.example/api/webhooks/1/x"}, "discord.com"),
    ("discord", {"url": "http://discord.com/api/webhooks/1/x"}, "https://"),
    ("discord", {"url": "https://discord.com/api/webhooks/1/x", "mention": "@everyone"},
     "Discord user id"),
    ("slack", {"url": "https://hooks.slack.com/services/x", "mention": "<!channel>"},
     "Slack member id"),
    ("matrix", {"homeserver": "https://m.org", "room": "#alias:m.org", "token": "t" * 10},
     "room id"),
    ("matrix", {"homeserver": "https://m.org", "room": "!r:m.org"}, "access token"),
    ("telegram", {"token": "nope", "chat_id": "1"}, "bot token"),
    ("telegram", {"token": "123456:" + "A" * 30, "chat_id": "١٢٣"}, "chat id"),
    ("json", {"url": "https://x.example/h", "secret": "plain"}, "whsec_"),
    ("json", {"url": "https://x.example/h\nHost: evil"}, "one address"),
    ("irc", {}, "one of"),
])
def test_targets_that_cannot_work_are_refused_with_a_sentence(kind, target, words):
    with pytest.raises(ChannelError) as refused:
        check_target(kind, target)
    assert words in refused.value.message


def test_a_target_shown_again_keeps_its_secrets_back():
    for kind, target in _targets("https://hooks.slack.com").items():
        checked = check_target(kind, target, allow_private=True)
        shown = json.dumps(public_target(kind, checked))
        for secret in ("abc", "syt_secret_token", "A" * 30, checked.get("secret") or "~"):
            assert secret not in shown
    assert set(KINDS) == set(_targets("x"))
