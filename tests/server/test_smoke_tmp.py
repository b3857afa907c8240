import json
from tests.server.test_platform import start_pig
from tests.server.talk_helpers import say, order, cancel

def test_smoke(make_player, app):
    gid, (ann, bob) = start_pig(make_player)
    r = say(ann, gid, "north", "hello all"); print(r.status_code, r.get_json())
    r = say(ann, gid, "north", "psst", to="east"); print(r.status_code, r.get_json()["to"])
    print([m["text"] for m in bob.get(f"/api/games/{gid}/messages").get_json()["messages"]])
    print([m["text"] for m in ann.get(f"/api/games/{gid}/messages", signed=False).get_json()["messages"]])
    r = order(bob, gid, "east", "roll"); print(r.status_code, r.get_json())
    r = ann.play(gid, "north", "hold"); print(r.status_code)
    log = ann.get(f"/api/games/{gid}/log").get_json()["entries"]
    print([(e["seq"], e["seat"], e["move"], e["forced"], json.loads(e["envelope"]).get("order")) for e in log])
    print(bob.get(f"/api/games/{gid}/orders").get_json())
    print(ann.get(f"/api/games/{gid}/orders").get_json())
    a = ann.get(f"/api/games/{gid}/archive").get_json()
    print(a["format"], len(a["messages"]), len(a["orders"]))
    from shared.archive import verify_archive
    print({k: v for k, v in verify_archive(a).items() if k not in ("state","view","game")})
