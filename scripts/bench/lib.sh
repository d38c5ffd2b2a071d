# Sourced by the benchmarks: a zram device of their own, filled by fio with incompressible data
# (so reads do not take zram's empty-page shortcut), and its removal, which retries while the
# last I/O's references drain.

bench_zram_create() {  # SIZE; sets bench_zram (zramN)
  bench_zram=zram$(cat /sys/class/zram-control/hot_add)
  echo "$1" >"/sys/block/$bench_zram/disksize"
  fio --name=fill --filename="/dev/$bench_zram" --rw=write --bs=1m --direct=1 --ioengine=libaio \
    --iodepth=8 --size="$1" >/dev/null
}

bench_zram_remove() {
  [ -n "${bench_zram:-}" ] || return 0
  for _ in $(seq 50); do
    if echo 1 >"/sys/block/$bench_zram/reset" 2>/dev/null &&
      echo "${bench_zram#zram}" >/sys/class/zram-control/hot_remove 2>/dev/null; then
      bench_zram=
      return 0
    fi
    sleep 0.1
  done
}
