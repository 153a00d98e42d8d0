/// Test doubles of the core ports (in-memory stores, recording push senders), for tests only.
enum FrostboxDoubles {}
