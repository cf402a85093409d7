#!/usr/bin/env python3
"""A plug-in assignor that goes wrong on purpose, one way per MODE: the
fixtures of the plug-in error tests (tests/assignors/test_plugin.cpp).

    bad_assignor.py MODE [AFTER]

It answers like tools/examples/range_assignor.py for the first AFTER requests
(default 0), then as MODE says.
"""
import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "examples"))
import range_assignor  # noqa: E402


def wrong(mode, request):
    """The answer (or the act) of MODE for this request."""
    good = range_assignor.assign(request)["assignment"]
    members = [m["id"] for m in request["members"]]
    if mode == "not-json":
        return "this is not json"
    if mode == "not-object":
        return "[1, 2]"
    if mode == "refuse":
        return json.dumps({"error": "cannot assign this group"})
    if mode == "unknown-member":
        good["ghost"] = {}
        return json.dumps({"assignment": good})
    if mode == "twice":  # a partition to two members
        first, second = members[0], members[1]
        topic = request["members"][0]["topics"][0]
        good[first].setdefault(topic, []).append(0)
        good[second].setdefault(topic, []).append(0)
        good[first][topic] = sorted(set(good[first][topic]))
        good[second][topic] = sorted(set(good[second][topic]))
        return json.dumps({"assignment": good})
    if mode == "missing":  # nothing assigned at all
        return json.dumps({"assignment": {m: {} for m in members}})
    if mode == "unsubscribed":  # a member given a topic it does not subscribe to
        for m in request["members"]:
            others = [t for t in request["topics"] if t not in m["topics"]]
            if others:
                good[m["id"]][others[0]] = [0]
                return json.dumps({"assignment": good})
        return json.dumps({"assignment": good})
    if mode == "no-such-partition":
        topic = request["members"][0]["topics"][0]
        good[members[0]][topic] = [request["topics"][topic]]
        return json.dumps({"assignment": good})
    if mode == "transfer":  # the last member takes every partition of its topics, owners or not
        last = request["members"][-1]
        for m in members:
            good[m] = {t: p for t, p in good[m].items() if t not in last["topics"]}
        good[last["id"]] = {t: list(range(request["topics"][t])) for t in last["topics"]}
        return json.dumps({"assignment": good})
    if mode == "hang":
        time.sleep(3600)
    if mode == "crash":
        os.kill(os.getpid(), signal.SIGKILL)
    if mode == "exit":
        sys.exit(3)
    raise SystemExit(f"bad_assignor.py: unknown mode {mode}")


def main():
    mode = sys.argv[1]
    after = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    for n, line in enumerate(sys.stdin):
        request = json.loads(line)
        answer = json.dumps(range_assignor.assign(request)) if n < after else wrong(mode, request)
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
