// The APNs provider client.
