// The launchers run a sweep's shards on engines people already run and merge
// them into exactly the unsharded sweep: GNU parallel (through its
// --sshlogin path, with ":" standing for this machine), and a Slurm job
// array on a real single-node Slurm started here (tests/launch/local-slurm).
// Each is skipped, saying why, only where its programs are not installed or
// (Slurm) its daemons cannot start, e.g. not root.
#include "tests/sweep/cli.hpp"

using namespace rsim::sweep_test;

namespace {

// Six short runs, small enough for the launchers' own overhead to dominate.
const std::string kArgs =
    "scenarios/quickstart.yaml --set config.session.timeout.ms=6000,10000 --protocols eager,consumer --seeds 2..3 --jobs 1";

bool installed(const std::string& program) {
  return shell(fmt::format("command -v {} || test -x /usr/sbin/{}", program, program)).code == 0;
}

// The unsharded sweep's file and tables.
Result unsharded(const TempDir& dir) {
  auto r = sim(fmt::format("sweep {} --out {}", kArgs, dir / "whole.jsonl"));
  REQUIRE(r.code == 0);
  return r;
}

}  // namespace

TEST_SUITE("sweep") {
  TEST_CASE("tools/launch/parallel: shards through GNU parallel merge into the unsharded sweep") {
    if (!installed("parallel")) {
      MESSAGE("skipped: GNU parallel is not installed (tools/setup installs Debian's parallel)");
      return;
    }
    TempDir dir;
    const auto whole = unsharded(dir);
    const auto local = shell(fmt::format("RSIM_BINARY='{}' tools/launch/parallel --shards 3 --out {} -- {}", kBinary,
                                         dir / "local.jsonl", kArgs));
    INFO(local.err);
    REQUIRE(local.code == 0);
    CHECK(local.out == whole.out);
    CHECK(slurp(dir / "local.jsonl") == slurp(dir / "whole.jsonl"));
    // The --sshlogin path, with this machine as the one host (":"), two jobs at a time.
    const auto ssh = shell(fmt::format("RSIM_BINARY='{}' tools/launch/parallel --shards 4 --sshlogin 2/: --out {} -- {}",
                                       kBinary, dir / "ssh.jsonl", kArgs));
    INFO(ssh.err);
    REQUIRE(ssh.code == 0);
    CHECK(ssh.out == whole.out);
    CHECK(slurp(dir / "ssh.jsonl") == slurp(dir / "whole.jsonl"));
    // A failing shard fails the launch, with exit code 2 passed on.
    CHECK(shell(fmt::format("RSIM_BINARY='{}' tools/launch/parallel --shards 2 -- {} --set nosuch.key=1", kBinary, kArgs)).code != 0);
  }

  TEST_CASE("tools/launch/slurm: a job array on a single-node Slurm merges into the unsharded sweep") {
    TempDir dir;
    const auto cluster = dir / "slurm";
    const auto start = shell(fmt::format("tests/launch/local-slurm start {}", cluster));
    if (start.code == 77) {
      MESSAGE("skipped: " << start.err);
      return;
    }
    INFO(start.err);
    REQUIRE(start.code == 0);
    struct Stop {
      std::string cluster;
      ~Stop() { shell(fmt::format("tests/launch/local-slurm stop {}", cluster)); }
    } stop{cluster};
    const auto whole = unsharded(dir);
    const auto r = shell(fmt::format("SLURM_CONF={}/slurm.conf RSIM_BINARY='{}' tools/launch/slurm --shards 3 --dir {} --out {} -- {}",
                                     cluster, kBinary, dir / "array", dir / "slurm.jsonl", kArgs));
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out == whole.out);
    CHECK(slurp(dir / "slurm.jsonl") == slurp(dir / "whole.jsonl"));
    CHECK(std::filesystem::exists(dir / "array/shard-3.jsonl"));
  }
}
