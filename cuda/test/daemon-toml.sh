# Sourced by the GPU session scripts: daemon_toml FILE PARAMS writes the
# configuration of a CUDA daemon on /tmp/cuzk.sock (status on
# 127.0.0.1:9821) over the parameter directory PARAMS, with
# memory.total_budget $BUDGET (default 40GiB) and a timeline of 400,000
# events.
daemon_toml() {
  cat > "$1" <<TOML
[daemon]
listen = "unix:///tmp/cuzk.sock"
status_listen = "127.0.0.1:9821"
[device]
kind = "cuda"
[memory]
total_budget = "${BUDGET:-40GiB}"
[srs]
param_cache = "$2"
[timeline]
events = 400000
TOML
}
