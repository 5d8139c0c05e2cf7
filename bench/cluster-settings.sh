# The benchmark cluster's settings, as scripts/with-cluster.sh options: sourced by bench/run.sh
# and bench/run-19.sh (inside the chroot), so that every server is measured alike. The report
# lists them as the server reports them.
bench_cluster_settings=(
	-o 'shared_buffers = 1GB'
	-o 'max_wal_size = 4GB'
	-o 'checkpoint_timeout = 30min'
	-o 'synchronous_commit = off'
	-o 'fsync = off'
	-o 'full_page_writes = off'
)
