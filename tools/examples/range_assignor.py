#!/usr/bin/env python3
"""Kafka's RangeAssignor as a rebalance-sim plug-in (standard library only).

Run it with:  rebalance-sim run SCENARIO --assignor-exec "python3 tools/examples/range_assignor.py"
or in a scenario:  assignor: {exec: [python3, tools/examples/range_assignor.py]}

One request per line on stdin, one answer per line on stdout (README, "Bring
your own assignor"). Per topic, the subscribed members, sorted as Kafka's
AbstractPartitionAssignor.MemberInfo sorts them (members with an instance id
first, by instance id; then the others by member id), each take a contiguous
range; the first P % C take one partition more. Racks are ignored (Kafka's
rack-aware pass is not re-implemented here).
"""
import json
import sys


def member_order(member):
    """MemberInfo's order: static members (by instance id) before dynamic ones (by id)."""
    instance = member.get("instance-id")
    return (0, instance, member["id"]) if instance is not None else (1, "", member["id"])


def assign(request):
    if request.get("side") == "consumer-group":
        # The broker-side RangeAssignor refuses a subscription to a topic that
        # does not exist (PartitionAssignorException); the client's skips it.
        for m in request["members"]:
            for topic in m["topics"]:
                if topic not in request["topics"]:
                    return {"error": f"member {m['id']} subscribes to topic {topic}, which does not exist"}
    members = sorted(request["members"], key=member_order)
    assignment = {m["id"]: {} for m in request["members"]}
    for topic in sorted(request["topics"]):
        partitions = request["topics"][topic]
        consumers = [m["id"] for m in members if topic in m["topics"]]
        if not consumers or partitions <= 0:
            continue
        per_member, extra = divmod(partitions, len(consumers))
        start = 0
        for i, member in enumerate(consumers):
            take = per_member + (1 if i < extra else 0)
            if take:
                assignment[member][topic] = list(range(start, start + take))
            start += take
    return {"assignment": assignment}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer = assign(json.loads(line))
        except (KeyError, TypeError, ValueError) as e:  # a request this example cannot read
            answer = {"error": f"range_assignor.py: {type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()  # one answer per request, now: the simulator waits for it


if __name__ == "__main__":
    main()
