// Package deploy holds the daemon's deployment files: the systemd unit
// (cuzk.service), the configuration it and the container image run
// (cuzk.toml) and the image (Dockerfile). It has no code; its test checks
// that the three agree with each other and with the config package (the
// socket path, the config path, the parameter cache, the stop timeout), and
// that the unit keeps none of the sandbox settings that would close the
// GPUs or the parameter cache to the daemon.
package deploy
