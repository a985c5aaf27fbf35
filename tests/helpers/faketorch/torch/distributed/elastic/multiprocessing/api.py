# torch's Std and to_map as torchrun uses them. With a file BROKEN beside
# this one, from_str returns None as torch 1.13 does on Python 3.11 (its
# "s in Std" check fails for Std(0)), and to_map then raises the same
# AttributeError every trainer of Debian 12's python3-torch dies with.
import enum
import os

BROKEN = os.path.exists(os.path.join(os.path.dirname(__file__), "BROKEN"))


class Std(enum.IntFlag):
    NONE = 0
    OUT = 1
    ERR = 2
    ALL = 3

    @classmethod
    def from_str(cls, vm):
        return None if BROKEN else cls(int(vm))


def to_map(val_or_map, local_world_size):
    if isinstance(val_or_map, Std):
        return {i: val_or_map for i in range(local_world_size)}
    return {i: val_or_map.get(i, Std.NONE) for i in range(local_world_size)}
