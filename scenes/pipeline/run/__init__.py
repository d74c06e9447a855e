"""Running jobs: the runner renders one job into its folder, the executors run many (local pool,
LocalCluster, dask), chapter renders the whole chapter and joins it. Imports every pipeline
package below it (jobs, video, present).
"""
