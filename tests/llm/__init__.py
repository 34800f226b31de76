# A package, so its test modules (test_config.py, ...) do not clash with same-named ones
# elsewhere under tests/; other tests import the fake server as `llm.fake_server`.
