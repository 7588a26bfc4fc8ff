"""The Spark recipe of docs/scale.md, as a program: ``python spark_recipe.py SCHEMA
DATA`` checks the JSON Lines file DATA in Spark local mode (two cores) with
mapInPandas and prints one JSON object: each record's line, status and errors, and
per Python worker process how many times it compiled the schema.

Run in a process of its own by tests/dask/test_spark.py, so that the JVM and its
threads never live in the test process.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator

import pandas as pd
from pyspark.sql import SparkSession

from schemacore.scale import SharedValidator, cache_info, check_texts


def main(schema_path: str, path: str) -> None:
    with open(schema_path, encoding="utf-8") as handle:
        schema = json.load(handle)
    spark = (
        SparkSession.builder.master("local[2]")
        .appName("schemacore-recipe")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    try:
        # The recipe: a SharedValidator made (and compiled) on the driver, captured
        # by the function mapInPandas runs on the Python workers.
        shared = SharedValidator.compile(schema)

        def check(frames: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
            for frame in frames:
                results = check_texts(shared, frame["value"], file=path, lines=frame["line"])
                yield pd.DataFrame(
                    {
                        "line": [result.line for result in results],
                        "status": [result.status for result in results],
                        "errors": [json.dumps(result.errors) for result in results],
                        "pid": os.getpid(),
                        "compiles": cache_info().compiles.get(shared.key, 0),
                    }
                )

        # Line numbers: the file's lines, numbered in order.
        numbered = spark.sparkContext.textFile(path, minPartitions=6).zipWithIndex()
        lines = spark.createDataFrame(
            numbered.map(lambda pair: (pair[0], pair[1] + 1)), schema="value string, line long"
        )
        checked = lines.mapInPandas(
            check, schema="line long, status string, errors string, pid long, compiles long"
        )
        rows = sorted(checked.collect(), key=lambda row: row["line"])
    finally:
        spark.stop()
    compiles: dict[int, list[int]] = {}
    for row in rows:
        compiles.setdefault(row["pid"], []).append(row["compiles"])
    report = {
        "rows": [[row["line"], row["status"], json.loads(row["errors"])] for row in rows],
        "compiles": {str(pid): sorted(set(seen)) for pid, seen in compiles.items()},
        "rows_per_worker": {str(pid): len(seen) for pid, seen in compiles.items()},
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
