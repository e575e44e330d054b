"""The Monitor tab: live metrics and the ring buffers behind its plots."""
