module github.com/cuzk-project/cuzk

go 1.26.8

require github.com/consensys/gnark-crypto v0.22.0

require (
	github.com/bits-and-blooms/bitset v1.25.0 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
