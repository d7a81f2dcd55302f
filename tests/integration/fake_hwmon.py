#!/usr/bin/env python3
"""A fake /sys/class/hwmon tree for the libsensors energy sources.

  fake_hwmon.py DIR amd CORE_W,CORE_W,... SOCKET_W
      DIR/hwmon0: name amd_energy, energyN_input (uJ) labelled EcoreNNN
      (one per listed wattage, channel N for CPU N) then Esocket0, each
      counter at START + W x elapsed
  fake_hwmon.py DIR power_meter WATTS
      DIR/hwmon0: name power_meter, power1_average WATTS (uW),
      power1_average_interval 1000 (ms)
  fake_hwmon.py DIR scmi WATTS
      DIR/hwmon0: name scmi_sensors, energy1_input (uJ) labelled SYS at
      WATTS, and a power sensor (left out: SCMI's energy counters win)

Counters use CLOCK_MONOTONIC from the start, so the total does not drift
with late wake-ups; every value is written to a file beside the tree and
renamed into place (a reader sees the old number or the new one). The
hwmonN directories have no device link: libsensors takes them as virtual
chips and reads them from where they are. Writes DIR/.ready once every
file is in place; runs until SIGTERM or SIGINT. SIGUSR1 resets every
counter to its start value, as a driver reload would.
"""
import os
import signal
import sys
import time

START_UJ = 1_000_000_000


def put(tmp, path, value):
    with open(tmp, "w") as f:
        f.write(f"{value}\n")
    os.rename(tmp, path)


def main():
    if len(sys.argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    root, kind = sys.argv[1], sys.argv[2]
    hw = os.path.join(root, "hwmon0")
    os.makedirs(hw, exist_ok=True)
    tmp = os.path.join(root, ".tmp")
    counters = []  # (path, watts)
    if kind == "amd":
        cores = [float(w) for w in sys.argv[3].split(",")]
        put(tmp, os.path.join(hw, "name"), "amd_energy")
        for i, w in enumerate(cores + [float(sys.argv[4])]):
            label = f"Ecore{i:03d}" if i < len(cores) else "Esocket0"
            put(tmp, os.path.join(hw, f"energy{i + 1}_label"), label)
            counters.append((os.path.join(hw, f"energy{i + 1}_input"), w))
    elif kind == "power_meter":
        put(tmp, os.path.join(hw, "name"), "power_meter")
        put(tmp, os.path.join(hw, "power1_average"), int(float(sys.argv[3]) * 1e6))
        put(tmp, os.path.join(hw, "power1_average_interval"), 1000)
    elif kind == "scmi":
        put(tmp, os.path.join(hw, "name"), "scmi_sensors")
        put(tmp, os.path.join(hw, "energy1_label"), "SYS")
        put(tmp, os.path.join(hw, "power1_label"), "CPU")
        put(tmp, os.path.join(hw, "power1_input"), 7_000_000)
        counters.append((os.path.join(hw, "energy1_input"), float(sys.argv[3])))
    else:
        sys.stderr.write(f"fake_hwmon: unknown kind '{kind}'\n")
        return 2
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    reset = []
    signal.signal(signal.SIGUSR1, lambda *_: reset.append(1))
    t0 = time.monotonic()
    for path, _ in counters:
        put(tmp, path, START_UJ)
    open(os.path.join(root, ".ready"), "w").close()
    while not stop:
        if reset:
            reset.clear()
            t0 = time.monotonic()
        dt = time.monotonic() - t0
        for path, w in counters:
            put(tmp, path, START_UJ + int(w * dt * 1e6))
        if not counters:
            time.sleep(0.1)
        else:
            time.sleep(0.002)
    return 0


if __name__ == "__main__":
    sys.exit(main())
