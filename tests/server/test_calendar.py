"""The private calendar feed: one event per pending deadline, its game named; a wrong token is
refused; a new address ends the old one."""

from icalendar import Calendar

from tests.helpers.mail import pig_game


def _feed_path(player):
    r = player.get("/api/players/me/calendar")
    assert r.status_code == 200, r.get_json()
    url = r.get_json()["url"]
    return url[url.index("/api/calendar/"):]


def test_the_feed_has_one_event_per_deadline_with_its_game(app, make_player, clock, client):
    g1, ann, bob = pig_game(make_player, clock, move_hours=48)
    carl = make_player("carl")
    g2 = ann.post("/api/games", {"type": "pig", "seats": 2, "move_hours": 24}).get_json()["id"]
    carl.post(f"/api/games/{g2}/join", {})
    path = _feed_path(ann)
    r = client.get(path)
    assert r.status_code == 200 and r.mimetype == "text/calendar"
    cal = Calendar.from_ical(r.data)
    events = [c for c in cal.walk() if c.name == "VEVENT"]
    assert sorted(g for e in events for g in (g1, g2) if g in str(e["summary"])) == sorted([g1, g2])
    starts = sorted(int(e.decoded("dtstart").timestamp()) for e in events)
    assert starts == [clock() + 24 * 3600, clock() + 48 * 3600]
    assert all(str(e["uid"]).endswith("@pbem") for e in events)
    # bob's feed holds his own deadlines only (none: ann moves first in both)
    bob_events = [c for c in Calendar.from_ical(client.get(_feed_path(bob)).data).walk()
                  if c.name == "VEVENT"]
    assert all(g1 not in str(e["summary"]) or "north" not in str(e["summary"])
               for e in bob_events)


def test_a_wrong_or_old_token_is_refused(app, make_player, clock, client):
    g1, ann, bob = pig_game(make_player, clock, move_hours=48)
    path = _feed_path(ann)
    name, token = path.split("/")[3], path.split("/")[4][:-4]
    for bad in (f"/api/calendar/{name}/{token[:-1]}x.ics", f"/api/calendar/{name}/.ics",
                f"/api/calendar/nobody/{token}.ics", f"/api/calendar/{bob.name}/{token}.ics",
                f"/api/calendar/{name}/{'a' * 5000}.ics"):
        r = client.get(bad)
        assert r.status_code == 404, bad
        assert r.get_json()["error"]["code"] in ("unknown_feed", "not_found"), bad
    assert client.get("/api/players/me/calendar").status_code == 401  # unsigned
    r = ann.post("/api/players/me/calendar", {})
    new = r.get_json()["url"]
    assert client.get(path).status_code == 404          # the old address ends
    assert client.get(new[new.index("/api/calendar/"):]).status_code == 200
