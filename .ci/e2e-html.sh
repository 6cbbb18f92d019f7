#!/usr/bin/env bash
# End-to-end check of the HTML reports of 'lab diagnose', 'lab ab' and
# 'lab sweep' in a real browser: render each with headless Chromium
# (Debian's chromium, installed when missing) to a PNG, and fail on a render
# error or a blank page.
set -euo pipefail
cd "$(dirname "$0")/.."

. .ci/need.sh
need chromium chromium

work=$(mktemp -d)
profile=$(mktemp -d)
trap 'rm -rf "$work" "$profile"' EXIT

echo "== lab diagnose --html, lab ab --html, lab sweep --html"
go run ./cmd/lab diagnose --scenario jitter-fix --seeds 1-5 --duration 30s --html "$work/diagnose.html" >/dev/null
go run ./cmd/lab ab --scenario jitter-fix --seeds 1-5 --duration 30s --b server.inputs=queue --html "$work/ab.html" >/dev/null
go run ./cmd/lab sweep --scenario jitter-fix --seeds 1-5 --duration 30s --over link.jitter=0ms,20ms,40ms --html "$work/sweep.html" >/dev/null

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
  --disable-component-update --disable-sync --user-data-dir="$profile")

# The PNG must exist and show something: not one colour, and enough ink.
mkdir -p "$work/pngcheck"
cat >"$work/pngcheck/main.go" <<'GO'
package main

import (
	"fmt"
	"image/png"
	"os"
)

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	img, err := png.Decode(f)
	if err != nil {
		fmt.Println("not a PNG:", err)
		os.Exit(1)
	}
	b := img.Bounds()
	colours := map[[3]uint32]int{}
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}]++
			if r>>8 < 128 && g>>8 < 128 && bl>>8 < 128 {
				ink++
			}
		}
	}
	share := float64(ink) / float64(b.Dx()*b.Dy())
	fmt.Printf("%dx%d, %d colours, %.2f %% dark pixels\n", b.Dx(), b.Dy(), len(colours), 100*share)
	if len(colours) < 16 || share < 0.002 {
		fmt.Println("the page looks blank")
		os.Exit(1)
	}
}
GO
(cd "$work/pngcheck" && go build -o pngcheck main.go)

# check NAME TITLE: the report NAME.html loads, has its title, a chart and
# the timelines, and renders to a PNG that is not blank.
check() {
  local name=$1 title=$2
  test -s "$work/$name.html"
  echo "== $name: chromium --dump-dom"
  timeout 120 chromium "${flags[@]}" --dump-dom "file://$work/$name.html" >"$work/$name.dom" 2>"$work/$name.dom.log" || {
    echo "chromium failed to load the $name report:"; tail -20 "$work/$name.dom.log"; exit 1; }
  for want in "$title" 'id="timelines"' '<svg' 'polyline' 'circle'; do
    grep -q "$want" "$work/$name.dom" || { echo "the rendered $name page lacks $want"; exit 1; }
  done
  echo "== $name: chromium --screenshot"
  timeout 120 chromium "${flags[@]}" --window-size=1000,3600 --screenshot="$work/$name.png" "file://$work/$name.html" \
    >"$work/$name.shot.log" 2>&1 || { echo "chromium failed to render the $name report:"; tail -20 "$work/$name.shot.log"; exit 1; }
  "$work/pngcheck/pngcheck" "$work/$name.png"
}
check diagnose 'lab diagnose: jitter-fix'
check ab 'lab ab: jitter-fix'
check sweep 'lab sweep: jitter-fix'
echo "e2e-html: ok"
