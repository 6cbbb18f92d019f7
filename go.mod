module jitterlab

go 1.26.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/gdamore/tcell/v2 v2.13.10
	github.com/gopacket/gopacket v1.7.7
	github.com/klauspost/compress v1.20.3
	github.com/rivo/tview v0.42.0
	github.com/rivo/uniseg v0.4.7
	golang.org/x/image v0.38.0
	golang.org/x/sys v0.45.0
	golang.org/x/time v0.16.0
)

require (
	github.com/gdamore/encoding v1.0.1 // indirect
	github.com/lucasb-eyer/go-colorful v1.3.0 // indirect
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/term v0.43.0 // indirect
	golang.org/x/text v0.37.0 // indirect
)
