"""Where your notices go: ``pbem notify`` (your chat channels and webhooks, your chat ids,
your browsers' push subscriptions) and ``pbem notify GAME`` (the game's channel)."""

import click

from ..context import UsageProblem, pass_ctx

KINDS = ("discord", "slack", "matrix", "telegram", "json")


def _target(kind, address, mention, room, token, chat):
    """The channel's target from the options, or UsageProblem naming what is missing."""
    if kind in ("discord", "slack", "json"):
        target = {"url": address}
        if mention and kind != "json":
            target["mention"] = mention
        return target
    if kind == "matrix":
        if not room or not token:
            raise UsageProblem("a Matrix channel needs --room '!room:server' and --token "
                               "ACCESS_TOKEN beside the homeserver's address")
        return {"homeserver": address, "room": room, "token": token, "mention": mention}
    if not chat:
        raise UsageProblem("a Telegram channel needs --chat CHAT_ID beside the bot's token")
    return {"token": address, "chat_id": chat}


def _line(ch):
    where = " ".join(f"{k}={v}" for k, v in (ch.get("target") or {}).items() if v)
    state = ch["status"] if ch["status"] == "active" else \
        f"STOPPED ({ch.get('stopped_reason') or 'it kept failing'}; --test starts it again)"
    game = f" game {ch['game']}" if ch.get("game") else ""
    return f"{ch['id']:>4}  {ch['kind']:<8} {state}{game}  {where}"


@click.command()
@click.argument("game", required=False)
@click.option("--add", "add", nargs=2, metavar="KIND ADDRESS",
              help="Add a channel: discord URL, slack URL, json URL, matrix HOMESERVER "
                   "(with --room and --token) or telegram BOT_TOKEN (with --chat).")
@click.option("--channel", "channel", nargs=2, metavar="KIND ADDRESS",
              help="With GAME: give the game its group's channel (discord, slack, matrix, "
                   "telegram).")
@click.option("--mention", metavar="ID", help="Your id in that chat service, to mention you.")
@click.option("--room", metavar="ROOM", help="Matrix: the room id (!room:server).")
@click.option("--token", metavar="TOKEN", help="Matrix: the access token.")
@click.option("--chat", metavar="CHAT", help="Telegram: the chat id.")
@click.option("--remove", type=int, metavar="ID", help="Remove channel ID.")
@click.option("--test", "test_id", type=int, metavar="ID",
              help="Send a sample notice to channel ID now and say whether it went.")
@click.option("--rotate-secret", type=int, metavar="ID",
              help="A json channel: a new signing secret (shown once).")
@click.option("--link", nargs=2, metavar="KIND ID",
              help="Your id in discord, slack or matrix, so a game's channel mentions you "
                   "when you owe a move ('none' removes it).")
@pass_ctx
def notify(c, game, add, channel, mention, room, token, chat, remove, test_id,
           rotate_secret, link):
    """Where your notices go: chat channels, webhooks, a game's channel.

    Chat channels are Discord, Slack, Matrix and Telegram, in their own formats.

    Without options it lists your channels (their secrets cut short), your
    chat ids and your browsers' push subscriptions; with GAME, the game's
    channels.  Every channel gets what a spectator may know and "your move":
    never your hand.  A channel that keeps failing is stopped, and you are
    told by mail.

    \\b
    Examples:
      pbem notify --add discord https://discord.com/api/webhooks/ID/TOKEN --mention 1234567890
      pbem notify --add json https://example.org/hook
      pbem notify --test 3
      pbem notify --link discord 1234567890
      pbem notify k7m2q9xa3b --channel slack https://hooks.slack.com/services/T/B/X
    """
    api = c.signed_api()
    if channel and not game:
        raise UsageProblem("--channel gives a GAME its channel: pbem notify GAME --channel "
                           "KIND ADDRESS")
    if add or channel:
        kind, address = add or channel
        if kind not in KINDS:
            raise UsageProblem(f"a channel is one of {', '.join(KINDS)}, not {kind!r}")
        made = api.add_channel(kind, _target(kind, address, mention, room, token, chat),
                               game_id=game if channel else None)
        lines = [f"channel {made['id']} ({made['kind']}) added"]
        if made.get("secret"):
            lines += [f"its signing secret (shown only this once): {made['secret']}",
                      "check each request's webhook-signature with it (Standard Webhooks)"]
        return c.emit(made, lines)
    if remove is not None:
        api.remove_channel(remove)
        return c.emit({"removed": remove}, [f"channel {remove} removed"])
    if test_id is not None:
        result = api.test_channel(test_id)
        if not result["sent"]:
            from ..context import PbemError
            raise PbemError(f"the sample notice did not go: {result['reason']}")
        return c.emit(result, [f"a sample notice went to channel {test_id}"])
    if rotate_secret is not None:
        result = api.rotate_channel_secret(rotate_secret)
        return c.emit(result, [f"channel {rotate_secret}'s new signing secret (shown only "
                               f"this once): {result['secret']}"])
    if link:
        kind, value = link
        if kind not in ("discord", "slack", "matrix"):
            raise UsageProblem(f"--link takes discord, slack or matrix, not {kind!r}")
        ids = dict(api.channels().get("chat_ids") or {})
        ids[kind] = None if value.lower() == "none" else value
        listed = api.set_chat_ids({k: v for k, v in ids.items() if k in ("discord", "slack",
                                                                           "matrix")})
        return c.emit(listed, [f"your {kind} id: {listed['chat_ids'].get(kind) or '(none)'}"])
    listed = api.game_channels(game) if game else api.channels()
    lines = [_line(ch) for ch in listed["channels"]] or \
        ["no channels: notices go by mail only (pbem notify --add KIND ADDRESS adds one)"]
    if not game:
        ids = listed.get("chat_ids") or {}
        lines.append("chat ids: " + (", ".join(f"{k} {v}" for k, v in ids.items()) or
                                     "none (pbem notify --link discord ID)"))
        pushes = listed.get("push") or []
        lines.append(f"push: {len(pushes)} browser(s) ("
                     "turn it on from the settings page of a browser)" if not pushes else
                     f"push: {len(pushes)} browser(s): " +
                     ", ".join(p.get("label") or p["endpoint"] for p in pushes))
    c.emit(listed, lines)
