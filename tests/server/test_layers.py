"""The server's layers: services raise domain errors (server/game/domain.py), and only the API and
page layer turns them into HTTP; configuration is read in config.py only."""

import re
from pathlib import Path

import pytest

import server
from server.http.errors import STATUS
from tests.helpers.mail import _mail, armored, pig_game, post_mail, tick

SERVER = Path(server.__file__).parent
HTTP_LAYER = ("api/", "web/", "http/")  # the API, the pages and their HTTP plumbing


def _modules(skip=()):
    for path in sorted(SERVER.rglob("*.py")):
        name = path.relative_to(SERVER).as_posix()
        if not name.startswith("migrations/") and not name.startswith(skip):
            yield name, path.read_text("utf-8")


def test_only_the_http_layer_raises_http_errors():
    """The notice worker and mail-in catch what the services raise: a DomainError, never a
    werkzeug exception."""
    found = [name for name, text in _modules(HTTP_LAYER)
             if re.search(r"\bfail\(|\bApiError\b|\babort\(|werkzeug\.exceptions", text)]
    assert found == []


def test_configuration_is_read_in_config_py_only_and_no_setattr_loops():
    assert [name for name, text in _modules(("config.py",))
            if re.search(r"os\.environ|getenv\(", text)] == []
    assert [name for name, text in _modules() if "setattr(" in text] == []


@pytest.mark.parametrize("kind, status", sorted(STATUS.items(), key=lambda kv: kv[1]),
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_each_kind_of_domain_error_is_its_http_status_as_json_and_as_a_page(app, kind, status):
    def refuse():
        raise kind("some_code", "a sentence for a person", {"n": 1})
    app.add_url_rule("/api/refuse", "api_refuse", refuse)
    app.add_url_rule("/refuse", "page_refuse", refuse)
    client = app.test_client()
    r = client.get("/api/refuse")
    assert r.status_code == status
    assert r.get_json() == {"error": {"code": "some_code", "message": "a sentence for a person",
                                      "details": {"n": 1}}}
    page = client.get("/refuse")
    assert page.status_code == status and page.mimetype == "text/html"
    assert "a sentence for a person" in page.get_data(as_text=True)


def test_a_service_refusal_keeps_its_code_through_the_api(make_player):
    """create_game raises NotFound for an unknown type: a 404 with the list of known types."""
    ann = make_player("ann")
    r = ann.post("/api/games", {"type": "no-such-game", "seats": 2})
    assert r.status_code == 404
    body = r.get_json()["error"]
    assert body["code"] == "unknown_game_type" and "pig" in body["details"]["known"]


def test_mail_in_keeps_a_rules_refusal_for_the_seats_player(app, client, make_player, clock,
                                                            smtp):
    """Mail-in reads the domain error's seat and privacy: the answer to the POST gives a
    generic sentence, the reply mailed to the mover names the rules' reason."""
    game_id, ann, bob = pig_game(make_player, clock)
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    block, _ = armored(ann, game_id, "north", "jump", 0, info["prev"], clock)
    r = post_mail(client, _mail("someone@example.org", block))
    result = r.get_json()["results"][0]
    assert result["status"] == "refused" and result["code"] == "illegal_move"
    assert "jump" not in result["reason"] and "mailed to the seat's player" in result["reason"]
    tick(app)
    replies = [m.get_content() for m in smtp.messages if m["To"] == "ann@example.org"
               and "read by the pbem server" in m.get_content()]
    assert len(replies) == 1 and "REFUSED" in replies[0] and "'jump' is not a move" in replies[0]


def test_a_refusal_before_the_signature_verified_is_mailed_to_nobody(app, client, make_player,
                                                                     clock, smtp):
    """A block signed by the wrong key carries no verified seat: no reply goes out."""
    game_id, ann, bob = pig_game(make_player, clock)
    info = ann.get(f"/api/games/{game_id}/view").get_json()
    forged, _ = armored(bob, game_id, "north", "roll", 0, info["prev"], clock)
    r = post_mail(client, _mail("bob@example.org", forged))
    assert r.get_json()["results"][0]["code"] == "bad_signature"
    tick(app)
    assert not [m for m in smtp.messages if "read by the pbem server" in m.get_content()]


def test_the_notice_worker_survives_a_forced_move_that_lost_its_race(app, make_player, clock):
    """append_forced catches the DomainError of a refused forced move and reports False."""
    from server.db import db
    from server.db.models import Game
    from server.game.append import append_forced
    game_id, ann, bob = pig_game(make_player, clock)
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game.to_act == ["north"]
        assert append_forced(game, "east", "hold") is False  # east owes no move
        assert append_forced(game, "north", "hold") is True
    entries = ann.get(f"/api/games/{game_id}/log").get_json()["entries"]
    assert [(e["seat"], e["move"], e["forced"]) for e in entries] == [("north", "hold", True)]


def test_every_setting_the_readme_names_is_read_from_the_environment():
    """An operator sets what the README's configuration table names: each PBEM_ variable
    there is read by server/config.py (a setting read only from the app's config cannot be
    set; the device links' minutes once were)."""
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    table = readme[readme.index("## Configuration"):readme.index("## Deployment")]
    named = set(re.findall(r"`(PBEM_[A-Z0-9_]+)`", table))
    source = (root / "server" / "config.py").read_text()
    assert named and [n for n in sorted(named) if f'"{n}"' not in source] == []
