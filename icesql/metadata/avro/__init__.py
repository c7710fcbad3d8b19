"""Avro, as Iceberg's manifests and manifest lists use it.

* ``container`` -- reading and writing container files with the stored integers of logical
  types kept (fastavro's logical-type objects lose range and precision);
* ``skipping`` -- a decoder that passes over the fields planning does not need (column
  metrics) faster than fastavro;
* ``schema`` -- Avro schemas with Iceberg field ids, and their Iceberg schema.
"""
