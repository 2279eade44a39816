"""Fiatlux: a Unitree G1 replaces a light bulb, in twelve subtasks scored on difficulty-weighted gates."""
