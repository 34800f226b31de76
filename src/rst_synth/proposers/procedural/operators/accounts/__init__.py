"""Operators on a host's local accounts and the storage they share: a change plan from an updated roster, a
repair of shared folders restored without their ownership."""
