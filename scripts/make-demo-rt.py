#!/usr/bin/env python3
"""Turns the demo's recorded-style GTFS-Realtime sequence into protobuf snapshots.

Reads Sources/LivelineTransit/Demo/rt/sequence.json (a JSON array of snapshots in time order)
and writes one binary FeedMessage per snapshot next to it: 001.pb, 002.pb, ... (earlier .pb
files there are removed first). Each FeedMessage has a FeedHeader (gtfs_realtime_version "2.0",
FULL_DATASET, the snapshot's POSIX timestamp), one entity with the TripUpdate and one with the
VehiclePosition (trip, vehicle, position, current stop, occupancy_status, timestamp).

A tool for the team, not part of the server: it needs PyPI's gtfs-realtime-bindings in a
throwaway virtualenv.

    python3 -m venv .venv-demo
    .venv-demo/bin/pip install gtfs-realtime-bindings
    .venv-demo/bin/python scripts/make-demo-rt.py          # (re)write the .pb files
    .venv-demo/bin/python scripts/make-demo-rt.py --check  # exit 1 when they differ from the JSON
"""
import argparse
import json
import pathlib
import sys

try:
    from google.transit import gtfs_realtime_pb2 as rt
except ImportError:
    sys.exit("gtfs-realtime-bindings missing: python3 -m venv .venv-demo && "
             ".venv-demo/bin/pip install gtfs-realtime-bindings, then run this with .venv-demo/bin/python")

ROOT = pathlib.Path(__file__).resolve().parent.parent
RT_DIR = ROOT / "Sources" / "LivelineTransit" / "Demo" / "rt"


def fill_trip(descriptor, trip):
    descriptor.trip_id = trip["trip_id"]
    if "route_id" in trip:
        descriptor.route_id = trip["route_id"]
    descriptor.start_date = trip["start_date"]
    descriptor.start_time = trip["start_time"]
    descriptor.schedule_relationship = rt.TripDescriptor.ScheduleRelationship.Value(
        trip.get("schedule_relationship", "SCHEDULED"))


def fill_vehicle(descriptor, vehicle):
    descriptor.id = vehicle["id"]
    if "label" in vehicle:
        descriptor.label = vehicle["label"]


def fill_event(event, spec):
    if "delay" in spec:
        event.delay = spec["delay"]
    if "time" in spec:
        event.time = spec["time"]
    if "uncertainty" in spec:
        event.uncertainty = spec["uncertainty"]


def feed_message(snapshot):
    message = rt.FeedMessage()
    message.header.gtfs_realtime_version = "2.0"
    message.header.incrementality = rt.FeedHeader.FULL_DATASET
    message.header.timestamp = snapshot["timestamp"]

    tu = snapshot["trip_update"]
    entity = message.entity.add()
    entity.id = f"tu-{tu['trip']['trip_id']}"
    update = entity.trip_update
    fill_trip(update.trip, tu["trip"])
    if "vehicle" in tu:
        fill_vehicle(update.vehicle, tu["vehicle"])
    if "timestamp" in tu:
        update.timestamp = tu["timestamp"]
    for spec in tu["stop_time_updates"]:
        stu = update.stop_time_update.add()
        stu.stop_sequence = spec["stop_sequence"]
        if "stop_id" in spec:
            stu.stop_id = spec["stop_id"]
        stu.schedule_relationship = rt.TripUpdate.StopTimeUpdate.ScheduleRelationship.Value(
            spec.get("schedule_relationship", "SCHEDULED"))
        if "arrival" in spec:
            fill_event(stu.arrival, spec["arrival"])
        if "departure" in spec:
            fill_event(stu.departure, spec["departure"])

    vp = snapshot.get("vehicle_position")
    if vp is not None:
        entity = message.entity.add()
        entity.id = f"vp-{vp['vehicle']['id']}"
        position = entity.vehicle
        fill_trip(position.trip, vp["trip"])
        fill_vehicle(position.vehicle, vp["vehicle"])
        if "position" in vp:
            position.position.latitude = vp["position"]["latitude"]
            position.position.longitude = vp["position"]["longitude"]
        if "current_stop_sequence" in vp:
            position.current_stop_sequence = vp["current_stop_sequence"]
        if "stop_id" in vp:
            position.stop_id = vp["stop_id"]
        if "current_status" in vp:
            position.current_status = rt.VehiclePosition.VehicleStopStatus.Value(vp["current_status"])
        position.occupancy_status = rt.VehiclePosition.OccupancyStatus.Value(vp["occupancy_status"])
        position.timestamp = vp["timestamp"]
    return message


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the .pb files instead of writing them")
    args = parser.parse_args()

    snapshots = json.loads((RT_DIR / "sequence.json").read_text(encoding="utf-8"))
    last = None
    for index, snapshot in enumerate(snapshots, start=1):
        if last is not None and snapshot["timestamp"] <= last:
            sys.exit(f"sequence.json: snapshot {index} is not newer than the one before ({snapshot['timestamp']} <= {last})")
        last = snapshot["timestamp"]

    wanted = {f"{index:03d}.pb": feed_message(s).SerializeToString(deterministic=True)
              for index, s in enumerate(snapshots, start=1)}
    present = {p.name: p for p in RT_DIR.glob("*.pb")}

    if args.check:
        stale = sorted(n for n in wanted if n not in present or present[n].read_bytes() != wanted[n])
        extra = sorted(n for n in present if n not in wanted)
        if stale or extra:
            print(f"out of date: {', '.join(stale + extra)}; run scripts/make-demo-rt.py", file=sys.stderr)
            return 1
        print(f"{len(wanted)} snapshots match sequence.json")
        return 0

    for path in present.values():
        path.unlink()
    for name, data in wanted.items():
        (RT_DIR / name).write_bytes(data)
    print(f"wrote {len(wanted)} FeedMessages to {RT_DIR.relative_to(ROOT)}/ (001.pb … {len(wanted):03d}.pb)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
