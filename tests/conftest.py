import pytest


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite golden files and committed reports instead of comparing")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: use --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def update_golden(request):
    return request.config.getoption("--update-golden")


# the fixture generator needs torch and scikit-learn when run; it is not a test module
collect_ignore = ["fixtures/make_fixtures.py"]
