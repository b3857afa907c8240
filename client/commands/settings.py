"""Your settings on the server: ``pbem settings`` (time zone, email, quiet hours, notices,
weekends, vacation), ``pbem vacation`` (PATCH /api/players/me, POST
/api/players/me/vacation) and ``pbem calendar`` (the private feed of your deadlines)."""

import re

import click

from ..context import UsageProblem, pass_ctx

# --digest: the server's "notify" setting in the words a player uses
DIGEST = {"daily": "digest", "off": "every", "none": "none"}
WEEKENDS = {True: "off: your deadlines skip Saturday and Sunday",
            False: "your deadlines run every day"}
NOTIFY_WORDS = {"every": "a notice for each move", "digest": "one digest a day",
                "none": "no notices"}


def parse_quiet_hours(text):
    """(start, end) hours for ``22-7``; (None, None) for ``off``.  UsageProblem otherwise.

    >>> parse_quiet_hours("22-7"), parse_quiet_hours("off")
    ((22, 7), (None, None))
    """
    if text.strip().lower() in ("off", "none"):
        return None, None
    match = re.fullmatch(r"\s*([0-9]{1,2})\s*-\s*([0-9]{1,2})\s*", text)  # ASCII digits
    if match is None or not all(0 <= int(h) <= 23 for h in match.groups()):
        raise UsageProblem(f"--quiet-hours {text!r} is not START-END in whole hours 0 to 23 "
                           "of your time zone, like 22-7 (or off)")
    start, end = (int(h) for h in match.groups())
    if start == end:
        raise UsageProblem(f"--quiet-hours {text!r} starts and ends at the same hour: give "
                           "two different hours, like 22-7 (or off)")
    return start, end


def _lines(me):
    quiet = "off" if me.get("quiet_start") is None or me.get("quiet_end") is None else \
        f"{me['quiet_start']:02d}:00 to {me['quiet_end']:02d}:00 (no email then)"
    notify = me.get("notify") or "every"
    away = me.get("vacation_until")
    return [f"name         {me.get('name')}",
            f"time zone    {me.get('tz') or 'UTC'}",
            f"email        {me.get('email') or '(none: no notices by email)'}",
            f"quiet hours  {quiet}",
            f"notices      {notify} ({NOTIFY_WORDS.get(notify, notify)})",
            f"webhook      {me.get('webhook_url') or '(none)'}",
            f"weekends     {WEEKENDS[bool(me.get('weekends_off'))]}",
            f"vacation     {'until ' + str(away) if away else 'none'}; "
            f"{me.get('vacation_days_left')} day(s) left this year (pbem vacation --days N)"]


def _remember_tz(c, me):
    """The home's config keeps the time zone (pbem games shows deadlines in it)."""
    config = c.home.config()
    if me.get("tz") and config.get("tz") != me["tz"]:
        config["tz"] = me["tz"]
        c.home.save_config(config)


@click.command()
@click.option("--tz", metavar="ZONE", help="Your time zone, e.g. Europe/Paris.")
@click.option("--email", metavar="E", help="Where notices go ('none': no email).")
@click.option("--quiet-hours", metavar="START-END",
              help="No email between these hours of your time zone, e.g. 22-7 ('off': "
                   "none).")
@click.option("--digest", type=click.Choice(sorted(DIGEST)),
              help="daily: one digest a day instead of a notice per move; off: a notice per "
                   "move; none: no notices.")
@click.option("--weekends-off", type=click.Choice(["on", "off"]),
              help="on: your deadlines count no hour of Saturday or Sunday in your time zone "
                   "(new deadlines from now on).")
@pass_ctx
def settings(c, tz, email, quiet_hours, digest, weekends_off):
    """Show your settings, or change them: time zone, email, quiet hours, notices.

    Without options it shows them, and your vacation days.  With options it
    changes those on the server and shows the result.

    \b
    Examples:
      pbem settings
      pbem settings --tz Europe/Paris --quiet-hours 22-7 --digest daily
      pbem settings --email ann@example.org --quiet-hours off
      pbem settings --weekends-off on
    """
    api = c.signed_api()
    changes = {}
    if tz is not None:
        changes["tz"] = tz
    if email is not None:
        changes["email"] = None if email.strip().lower() == "none" else email
    if quiet_hours is not None:
        changes["quiet_start"], changes["quiet_end"] = parse_quiet_hours(quiet_hours)
    if digest is not None:
        changes["notify"] = DIGEST[digest]
    if weekends_off is not None:
        changes["weekends_off"] = weekends_off == "on"
    me = api.update_settings(changes) if changes else api.me()
    if changes:
        _remember_tz(c, me)
    c.emit(me, _lines(me))


@click.command()
@click.option("--days", type=click.IntRange(1, 60), required=True, metavar="N",
              help="How many days (1 to 60; the server counts them against this year's).")
@pass_ctx
def vacation(c, days):
    """Take N vacation days from now: your deadlines pause that long.

    Every deadline you have moves N days later; pbem games says you are on
    vacation.  The server refuses more days than you have left this year.

    \b
    Example:
      pbem vacation --days 7
    """
    me = c.signed_api().vacation(days)
    c.emit(me, [f"on vacation until {me.get('vacation_until')}: your deadlines are {days} "
                f"day(s) later; {me.get('vacation_days_left')} day(s) left this year"])


@click.command()
@click.option("--new", "new", is_flag=True,
              help="Make a new address; the old one stops working (if it leaked).")
@pass_ctx
def calendar(c, new):
    """Print the private address of a calendar feed of your deadlines.

    Add the address to a calendar app (as a subscription): each deadline you
    have is an event, named by its game.  Keep it private: whoever has it
    reads your deadlines.

    \b
    Examples:
      pbem calendar
      pbem calendar --new
    """
    feed = c.signed_api().calendar(new=new)
    c.emit(feed, [feed["url"]])
