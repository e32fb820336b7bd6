// The APNs sandbox.
