#!/usr/bin/env python3
"""The reading handler's messages, answered by a handler a team writes in Python.

It plays the handler role by the harness's frame protocol (Sources/ProcessKit/PROTOCOL.md):
each frame is a 4-byte little-endian length and that many bytes of JSON. It says hello, then
answers each request with one `done`: `{"type": "getDefault", "key": K}` with the value the App
Group's defaults hold, `{"type": "setDefault", "key": K, "value": V}` by writing it. The App
Group's defaults are the plist `UserDefaults(suiteName:)` keeps, in the folder the harness gives
every process of a run as XDG_CONFIG_HOME. The harness's own arguments (`--container DIR`, ...)
are not needed here.
"""
import json
import os
import plistlib
import struct
import sys

SUITE = "group.example.reading"


def defaults_path():
    return os.path.join(os.environ.get("XDG_CONFIG_HOME", "."), SUITE + ".plist")


def read_defaults():
    try:
        with open(defaults_path(), "rb") as file:
            return plistlib.load(file)
    except FileNotFoundError:
        return {}


def write_defaults(values):
    # Written whole to a temporary file, then renamed over the old one.
    temporary = defaults_path() + ".tmp"
    with open(temporary, "wb") as file:
        plistlib.dump(values, file)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, defaults_path())


def send(frame):
    payload = json.dumps(frame).encode("utf-8")
    sys.stdout.buffer.write(struct.pack("<I", len(payload)) + payload)
    sys.stdout.buffer.flush()


def receive():
    header = sys.stdin.buffer.read(4)
    if len(header) < 4:
        return None
    (length,) = struct.unpack("<I", header)
    return sys.stdin.buffer.read(length)


def answer(message):
    if not isinstance(message, dict) or not isinstance(message.get("key"), str):
        return {"error": "no key"}
    key = message["key"]
    if message.get("type") == "getDefault":
        return {"key": key, "value": read_defaults().get(key)}
    if message.get("type") == "setDefault":
        values = read_defaults()
        # A property list has no null: a null value removes the key.
        if message.get("value") is None:
            values.pop(key, None)
        else:
            values[key] = message["value"]
        write_defaults(values)
        return {"key": key, "saved": True}
    return {"error": "unknown message"}


send({"kind": "hello", "protocol": 1, "role": "handler"})
while (payload := receive()) is not None:
    try:
        frame = json.loads(payload)
    except ValueError:
        send({"kind": "error", "message": "a frame that is not JSON"})
        continue
    if frame.get("kind") != "input":
        send({"kind": "error", "message": "expected an input frame"})
        continue
    reply = answer(frame.get("input", {}).get("message"))
    send({"kind": "done", "directives": [{"type": "reply", "message": reply}]})
