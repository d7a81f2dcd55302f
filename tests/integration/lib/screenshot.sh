# Sourced by tests/integration/lib.sh (its functions and variables are
# in scope): a page in headless Chromium: its screenshot, and the PNG decoded and
# its pixels counted.

# chromium_shot HTML PNG: headless Chromium renders the page HTML (a
# file) into the screenshot PNG, 1200x1600; one check
chromium_shot() {
	local html=$1 shot=$2 rc
	HOME=$TMP timeout 90 chromium --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --hide-scrollbars \
		--user-data-dir="$(mktemp -d -p "$TMP")" --screenshot="$shot" \
		--window-size=1200,1600 "file://$html" >"$TMP/chromium.log" 2>&1
	rc=$?
	check "chromium wrote a screenshot (exit $rc)" test -s "$shot" ||
		{ tail -5 "$TMP/chromium.log"; return 1; }
}

# png_check PNG NAME:RRGGBB[:MIN]...: decode the screenshot (stdlib
# only) and count pixels: at least 50 colours, 10% of pixels off the
# background, and MIN (default 2000) pixels of each colour named (bars
# and lines of a palette colour); prints a line per check, fails if any
# fails
png_check() {
	"$PY3" - "$@" <<'EOF'
import struct, sys, zlib
from collections import Counter

data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    print("FAIL  screenshot is a PNG"); sys.exit(1)
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        interlace = body[12]
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
if depth != 8 or ctype not in (2, 6) or interlace:
    print(f"FAIL  PNG format (depth {depth}, colour type {ctype})"); sys.exit(1)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, pixels = bytearray(stride), Counter()
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, prev))
    elif f in (1, 3, 4):
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            else:
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
    pixels.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp))
    prev = line
bg, nbg = pixels.most_common(1)[0]
other = w * h - nbg
ok = True
def check(what, cond):
    global ok
    print(("ok    " if cond else "FAIL  ") + what)
    ok &= cond
check(f"screenshot {w}x{h} has {len(pixels)} colours (want >= 50)", len(pixels) >= 50)
check(f"{100 * other / (w * h):.1f}% of pixels differ from the background #{bg.hex()} (want >= 10%)",
      other >= 0.10 * w * h)
for name, rgb, want in ((a.split(":") + ["2000"])[:3] for a in sys.argv[2:]):
    n = pixels[bytes.fromhex(rgb)]
    check(f"{name} #{rgb} bars and lines drawn: {n} pixels (want >= {want})", n >= int(want))
sys.exit(0 if ok else 1)
EOF
}
