"""Check files the pytest plugin collects: ``test_*.sql`` (one check per statement) and
``*.checks.toml`` (declarative checks per table), read into plain records with their line
numbers. Pure text handling: nothing here imports the engine, so collecting costs little;
``icesql.testing`` runs the checks."""
