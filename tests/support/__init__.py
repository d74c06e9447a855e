"""The tests' shared machinery, never the code under test (the test files import it as `support.X`):

- oracles, one per clip family, from PyTorch and numpy written here (never scenes.compute):
  causal_mask_oracle, dropout_oracle, exercises_oracle, implementation_oracle, multihead_oracle;
- formatting: the display rules written again (exact decimal text at a precision);
- contract, contract_values: the legibility contract and the number check, read from a manifest;
- derivations: the checks of the numbers made in front of the viewer (sources, moments, flows);
- pixels: a frame read back, each number's box against its recorded text;
- video: a real mp4 decoded (PyAV) against the manifest and the fast path;
- browser: headless Chromium (one driver for every page test) and the way to wait on a page;
- lab_client: the lab as a real server process, and plain HTTP to it;
- shared_builds: builds shared by every worker of a session;
- sweep, suite_time: scripts (the long contract sweep; where the suite's time goes).
"""
