"""The events of one log entry joined as the CLI prints them (shared/numbering.py)."""

from shared.numbering import joined_events


def test_a_following_sentence_goes_on_in_lower_case_and_names_keep_their_case():
    entry = {"move": "duel captain archer@tower", "events": [
        "moroni's captain is killed.", "The army of moroni is lost: its captain was killed.",
        "The Lamanites lead their captives (moroni 1 infantry) to the Stockade of Nephihah.",
        "Round 1: the turn of helaman.", "Blue gets 1stone.", "helaman takes the palace."]}
    assert joined_events(entry) == (
        "moroni's captain is killed; the army of moroni is lost: its captain was killed; "
        "the Lamanites lead their captives (moroni 1 infantry) to the Stockade of Nephihah; "
        "round 1: the turn of helaman; Blue gets 1stone; helaman takes the palace")


def test_the_first_event_keeps_its_capital_and_no_stop_doubles():
    assert joined_events({"move": "end", "events": ["The war begins.", "Set-up done."]}) == \
        "The war begins; set-up done"
    assert joined_events({"move": "end", "events": []}) == ""
    assert joined_events({"move": "@takeback 14", "events": [
        "red asks to take back 1 move (move 14)."]}) == \
        "red asks to take back 1 move (move 15)"
