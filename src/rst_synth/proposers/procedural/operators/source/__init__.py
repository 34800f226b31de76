"""Operators on source code: module and function inventories, shell script commands, call graphs."""
