def test_the_quota_window_and_its_retry_after() -> None:
    """The rolling window counts by the minute; past the quota, a new expert game may be
    created again once enough of the oldest minutes have left the window."""
    from api.games.bots import Limits, owner_of

    limits = Limits(cpu_seconds=10.0, cpu_window=600)  # 10 s per 10 minutes
    now = 100 * 60 + 30.0  # half a minute into minute 100
    assert limits.since(now) == 91
    assert not limits.over([(95, 4.0), (100, 5.9)])
    used = [(92, 6.0), (95, 3.0), (100, 2.0)]  # 11 s: over
    assert limits.over(used)
    # minute 92 leaves the window at the start of minute 102: 9.5 minutes from now
    assert limits.retry_after(used, now) == (102 * 60) - now
    assert not Limits(cpu_seconds=0).over(used)  # 0: no quota
    assert owner_of("abc", "10.0.0.1") == "account:abc"
    network = owner_of(None, "10.0.0.1")
    assert network is not None and network.startswith("network:") and "10.0" not in network
    assert owner_of(None, None) is None
