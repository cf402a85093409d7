#!/usr/bin/env python3
"""A Streams task assignor (KIP-1071, the coordinator's side) as a rebalance-sim
plug-in (standard library only): balanced and sticky, simpler than Kafka's
StickyTaskAssignor.

Run it with:  rebalance-sim run scenarios/streams/scale-out.yaml --assignor-exec "python3 tools/examples/sticky_tasks.py"
or in a scenario:  assignor: {exec: [python3, tools/examples/sticky_tasks.py]}

Requests with "side": "streams-group" carry the Streams group snapshot that
`rebalance-sim assign --protocol streams` reads: num_standby_replicas, the
sub-topologies (task count, stateful) and the members (id, process, their
current active and standby tasks). The answer gives every member its active
and standby tasks (README, "Bring your own assignor").

- Active tasks: each member keeps the current ones it may keep (a task of the
  topology, not already kept by another member, up to ceil(tasks / members));
  the rest go, in task order, to the member with the fewest active tasks
  (ties: member id).
- Standbys: each stateful task gets min(num_standby_replicas, processes - 1)
  standbys, on members of processes that hold no copy of it yet: a member
  that had it as a standby first, then the member with the fewest tasks.
"""
import json
import sys


def tasks_of(subtopologies):
    """Every task, in Kafka's order: by sub-topology id, then partition."""
    return [f"{sub}_{p}" for sub in sorted(subtopologies) for p in range(subtopologies[sub]["tasks"])]


def assign(request):
    if request.get("side") != "streams-group":
        return {"error": f"sticky_tasks.py assigns Streams tasks, not a {request.get('side')} request"}
    subtopologies = request["subtopologies"]
    members = sorted(request["members"], key=lambda m: m["id"])
    process = {m["id"]: m["process"] for m in members}
    active = {m["id"]: [] for m in members}
    standby = {m["id"]: [] for m in members}
    tasks = tasks_of(subtopologies)
    if not members:
        return {"assignment": {}}
    capacity = -(-len(tasks) // len(members))

    # Active tasks: sticky up to capacity, then the least loaded member.
    valid = set(tasks)
    owner = {}
    for m in members:
        for task in m.get("active", []):
            if task in valid and task not in owner and len(active[m["id"]]) < capacity:
                owner[task] = m["id"]
                active[m["id"]].append(task)
    for task in tasks:
        if task not in owner:
            least = min(members, key=lambda m: (len(active[m["id"]]), m["id"]))["id"]
            owner[task] = least
            active[least].append(task)

    # Standbys on other processes, previous holders first.
    processes = {m["process"] for m in members}
    copies = min(request.get("num_standby_replicas", 0), len(processes) - 1)
    had = {}
    for m in members:
        for task in m.get("standby", []):
            had.setdefault(task, []).append(m["id"])
    for task in tasks:
        sub = task.rsplit("_", 1)[0]
        if not subtopologies[sub]["stateful"]:
            continue
        holders = {process[owner[task]]}
        for _ in range(copies):
            free = [m["id"] for m in members if process[m["id"]] not in holders]
            previous = [m for m in had.get(task, []) if m in free]
            pick = previous[0] if previous else min(free, key=lambda i: (len(active[i]) + len(standby[i]), i))
            standby[pick].append(task)
            holders.add(process[pick])
    return {"assignment": {m["id"]: {"active": active[m["id"]], "standby": standby[m["id"]]} for m in members}}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer = assign(json.loads(line))
        except (KeyError, TypeError, ValueError) as e:  # a request this example cannot read
            answer = {"error": f"sticky_tasks.py: {type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()  # one answer per request, now: the simulator waits for it


if __name__ == "__main__":
    main()
