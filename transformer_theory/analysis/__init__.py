"""Measurements that read models and return records of data (no plotting inside the mathematics)."""
