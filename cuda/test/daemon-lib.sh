# Sourced by the GPU session scripts.
#
# daemon_toml FILE PARAMS writes the
# configuration of a CUDA daemon on /tmp/cuzk.sock (status on
# 127.0.0.1:9821) over the parameter directory PARAMS, with
# memory.total_budget $BUDGET (default 40GiB), device.critical_lane $LANE
# (default auto) and a timeline of 400,000 events.
daemon_toml() {
  cat > "$1" <<TOML
[daemon]
listen = "unix:///tmp/cuzk.sock"
status_listen = "127.0.0.1:9821"
[device]
kind = "cuda"
critical_lane = "${LANE:-auto}"
[memory]
total_budget = "${BUDGET:-40GiB}"
[srs]
param_cache = "$2"
[timeline]
events = 400000
TOML
}

# phase_delta KIND BEFORE AFTER: phase_means of what the runs between two /metrics dumps added.
phase_delta() {
  awk -v m="^cuzk_device_$1_phase_(seconds|runs)_total" '$0 ~ m { k = $0; sub(/ [^ ]+$/, "", k); if (FILENAME == ARGV[1]) b[k] = $NF; else a[k] = $NF }
    END { for (k in a) print k, a[k] - b[k] }' "$2" "$3" > "$3.delta"
  phase_means "$1" "$3.delta"
}

# phase_means KIND FILE prints the mean per run of each circuit's phases of
# KIND (kernel or prepare) from a /metrics dump FILE.
phase_means() {
  awk -v m="^cuzk_device_$1_phase_(seconds|runs)_total" '$0 ~ m { match($0, /circuit="[^"]*"/); ph = substr($0, RSTART + 9, RLENGTH - 10); match($0, /phase="[^"]*"/); ph = ph " " substr($0, RSTART + 7, RLENGTH - 8)
      if ($1 ~ /seconds/) s[ph] = $NF; else r[ph] = $NF }
    END { for (ph in s) if (r[ph] > 0) printf "  %-20s %9.1f ms over %d runs\n", ph, 1000 * s[ph] / r[ph], r[ph] }' "$2" | sort
}
