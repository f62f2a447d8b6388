"""What keeps the engine safe on a network (docs/security.md). keys.py: operators' API keys
and their quotas; limits.py: the bound and check of every input at the engine's edge;
rate.py: token buckets for rates."""
