"""What the console sends a Kitty terminal for a picture (ui/widgets/kitty_picture.py): the picture's own pixels,
in chunks the protocol accepts, placed without moving the cursor and without a reply that would land in
Textual's input, after the widget's previous picture is deleted. Drawn on a real kitty:
tests/sim/test_real_terminals.py."""

from __future__ import annotations

import base64
import random
import re
import zlib

from PIL import Image

from omeconsole.ui.widgets.kitty_picture import CHUNK, deletion, kitty_commands

_COMMAND = re.compile(r"\x1b_G([^;\x1b]*)(?:;([^\x1b]*))?\x1b\\")


def _parse(commands: str) -> list[tuple[dict[str, str], str]]:
    found = [(dict(pair.split("=", 1) for pair in keys.split(",")), payload or "")
             for keys, payload in _COMMAND.findall(commands)]
    assert "".join(_COMMAND.sub("", commands)) == "", "only Kitty graphics commands"
    return found


def test_the_picture_is_sent_whole_in_chunks_and_placed_quietly() -> None:
    noise = Image.frombytes("RGB", (320, 180), random.Random(29).randbytes(320 * 180 * 3))  # does not compress
    commands = _parse(kitty_commands(noise, 77, 36, 10))
    first_delete, (keys, _), *rest = commands
    assert first_delete == ({"a": "d", "d": "I", "i": "77", "q": "2"}, "")
    assert {key: keys[key] for key in ("a", "i", "s", "v", "c", "r", "C", "q", "f", "o")} == {
        "a": "T", "i": "77", "s": "320", "v": "180", "c": "36", "r": "10", "C": "1", "q": "2", "f": "24", "o": "z"}
    chunks = commands[1:]
    assert len(chunks) > 1 and all(len(payload) <= CHUNK for _, payload in chunks)
    assert [chunk_keys["m"] for chunk_keys, _ in chunks] == ["1"] * (len(chunks) - 1) + ["0"]
    assert all(chunk_keys == {"q": "2", "m": chunk_keys["m"]} for chunk_keys, _ in rest)
    sent = zlib.decompress(base64.standard_b64decode("".join(payload for _, payload in chunks)))
    assert sent == noise.tobytes()


def test_a_picture_is_taken_down_by_its_id_only() -> None:
    assert _parse(deletion(5)) == [({"a": "d", "d": "I", "i": "5", "q": "2"}, "")]
