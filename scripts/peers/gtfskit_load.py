"""gtfs-kit (PyPI) reading a GTFS feed: the peer of `liveline-bench transit-load`, in the same
words. `read_feed` reads every file into pandas tables (gtfs-kit 13 has no validation of its
own). Prints the time and this process's peak memory."""
import resource
import sys
import time

import gtfs_kit

path = sys.argv[1]
started = time.perf_counter()
feed = gtfs_kit.read_feed(path, dist_units="km")
read = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(
    f"gtfs-kit: {path.rsplit('/', 1)[-1]}: {len(feed.stops)} stops, {len(feed.trips)} trips, {len(feed.stop_times)} stop times "
    f"read in {read - started:.2f} s; peak memory {peak:.0f} MB (Python with pandas loaded)"
)
