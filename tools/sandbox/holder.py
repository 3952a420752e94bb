"""The keeper of an evaluation's private network: a namespace with nothing in it but loopback.

It runs with referee's own interpreter (`python -I -S`, standard library only) as the first
process of `unshare --user --map-root-user --net`. It brings `lo` up (an ioctl: no iproute2
needed), says "up" on its control socket (its stdin, a unix socket referee holds the other end
of), then hands out sockets made inside the namespace, one per request: referee connects them to
the served app to see whether it is ready, since its own sockets live in the host's network.
When referee closes its end (or dies), the holder exits.
"""

import fcntl
import socket
import struct
import sys

_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
_FAMILIES = {b"4": socket.AF_INET, b"6": socket.AF_INET6}


def loopback_up() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(probe, _SIOCGIFFLAGS, request)[:18])[1]
        fcntl.ioctl(probe, _SIOCSIFFLAGS, struct.pack("16sH", b"lo", flags | _IFF_UP))


def serve(control: socket.socket) -> None:
    while request := control.recv(16):
        family = _FAMILIES.get(request)
        if family is None:
            control.sendall(b"no")
            continue
        try:
            made = socket.socket(family, socket.SOCK_STREAM)
        except OSError:  # no IPv6 in this kernel
            control.sendall(b"no")
            continue
        with made:
            socket.send_fds(control, [b"ok"], [made.fileno()])


def main() -> int:
    control = socket.socket(fileno=sys.stdin.fileno())
    try:
        loopback_up()
    except OSError as exc:
        control.sendall(f"loopback: {exc.strerror or exc}".encode())
        return 1
    control.sendall(b"up")
    serve(control)
    return 0


if __name__ == "__main__":
    sys.exit(main())
