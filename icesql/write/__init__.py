"""Writing Iceberg tables: data files, metadata changes, and the one commit that publishes them.

* ``data_writer`` / ``parquet`` / ``column_metrics`` / ``sorting``: record batches to partitioned,
  sorted, size-bounded Parquet files with Spark's column metrics;
* ``updates`` / ``schema_update`` / ``spec_update``: metadata changes as plain
  data, computed the way Java's ``SchemaUpdate`` and ``UpdatePartitionSpec`` compute them;
* ``snapshot`` / ``summary`` / ``commit``: a ``Change`` becomes manifests, a manifest list, a
  snapshot with Spark's summary on the change's branch and one atomic catalog swap,
  retried on a lost race;
* ``manifest_filter`` / ``validation``: the files a commit drops from its parent's manifests,
  and the conflict checks against the commits made meanwhile.
"""
