"""Workload 1's cases: the table bench.py runs and report.py renders (its own module, so that
neither imports the other)."""

OVERLAY = "overlay(v placing 'x' from 1 for 1)"  # values are hex digits: 'x' always differs

# Workload 1: (key, label, data set, index method, SET clause, rows key, v43 %, target %)
W1_CASES = [
    ('same_len_c_btree', 'same-length change, compressed, btree', 'c', 'btree',
     'v = ' + OVERLAY, 'w1_rows', 5.3, 3.0),
    ('same_len_o_btree', 'same-length change, out of line, btree', 'o2500', 'btree',
     'v = ' + OVERLAY, 'w1_rows', 0.9, 3.0),
    ('same_len_o_hash', 'same-length change, out of line, hash', 'o3200', 'hash',
     'v = ' + OVERLAY, 'w1_hash_rows', 13.1, 5.0),
    ('diff_len_c_btree', 'different-length change, compressed, btree', 'c', 'btree',
     "v = v || 'x'", 'w1_rows', 0.6, 2.0),
    ('wb_c_btree', 'write back same value, compressed, btree', 'c', 'btree',
     "v = v || ''", 'w1_rows', -92.4, -80.0),
    ('wb_o_btree', 'write back same value, out of line, btree', 'o2500', 'btree',
     "v = v || ''", 'w1_rows', -43.0, -85.0),
    ('wb_c_spgist', 'write back same value, compressed, SP-GiST', 'c', 'spgist',
     "v = v || ''", 'w1_rows', -65.3, -70.0),
    ('wb_o_hash', 'write back same value, out of line, hash', 'o3200', 'hash',
     "v = v || ''", 'w1_hash_rows', -9.5, -50.0),
    ('ctl_unindexed', 'unindexed column changes (control)', 'ctl', None,
     'n = n + 1', 'w1_control_rows', -4.9, 2.0),
    ('ctl_short', 'short indexed value changes (control)', 'ctl', None,
     "s = s || 'x'", 'w1_control_rows', 0.2, 2.0),
]
