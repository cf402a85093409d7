// Kafka's own broker-side assignors (UniformAssignor, RangeAssignor of
// group-coordinator), timed on this machine on the inputs `tools/bench
// assignors` and `tools/bench kafka-grid` give ours, so that "faster than
// Java" is a ratio measured in the same minutes, not against figures from
// another machine. Compiled by tools/bench-java from a Kafka checkout; no
// Kafka code is copied here.
//
// The GroupSpec and topic describer are this file's (Kafka's GroupSpecImpl
// takes an Assignment built from generated record classes, which a checkout
// holds only after a Gradle build); they answer as GroupSpecImpl and
// SubscribedTopicDescriberImpl do: members in a HashMap, the inverted target
// assignment in HashMaps, topic ids in a HashSet. Kafka's benchmark resolves
// topic names to ids through a TopicIds view; a plain set of ids is no
// slower, so Java's figures here are, if anything, low.
//
// Sampling as JMH's average-time mode: warm-up calls for at least 2 s (the
// JIT compiles the assignor), then samples each the mean of a batch of calls
// lasting at least 5 ms; the median of the samples. Kafka's grid takes
// three such medians one after another and keeps the lowest, as `tools/bench
// kafka-grid` does for ours: a host's hiccup of a tenth of a second moved
// one median 7x (range, 500 members, 0.099 -> 0.719 ms).

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberSubscription;
import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

public final class KafkaAssignors {
    // A member as GroupSpecImpl holds one: its subscription and its assignment.
    static final class Member implements MemberSubscription, MemberAssignment {
        final Set<Uuid> topics;
        final Map<Uuid, Set<Integer>> owned;

        Member(Set<Uuid> topics, Map<Uuid, Set<Integer>> owned) {
            this.topics = topics;
            this.owned = owned;
        }

        @Override public Optional<String> rackId() { return Optional.empty(); }
        @Override public Optional<String> instanceId() { return Optional.empty(); }
        @Override public Set<Uuid> subscribedTopicIds() { return topics; }
        @Override public Map<Uuid, Set<Integer>> partitions() { return owned; }
    }

    // GroupSpecImpl's answers.
    static final class Spec implements GroupSpec {
        final Map<String, Member> members;
        final SubscriptionType type;
        final Map<Uuid, Map<Integer, String>> inverted;

        Spec(Map<String, Member> members, SubscriptionType type, Map<Uuid, Map<Integer, String>> inverted) {
            this.members = members;
            this.type = type;
            this.inverted = inverted;
        }

        @Override public Collection<String> memberIds() { return members.keySet(); }
        @Override public SubscriptionType subscriptionType() { return type; }

        @Override public boolean isPartitionAssigned(Uuid topicId, int partitionId) {
            Map<Integer, String> m = inverted.get(topicId);
            return m != null && m.containsKey(partitionId);
        }

        @Override public MemberSubscription memberSubscription(String memberId) {
            Member m = members.get(memberId);
            if (m == null) throw new IllegalArgumentException("Member Id " + memberId + " not found.");
            return m;
        }

        @Override public MemberAssignment memberAssignment(String memberId) {
            Member m = members.get(memberId);
            return m == null ? EMPTY : m;
        }
    }

    static final MemberAssignment EMPTY = Collections::emptyMap;

    // SubscribedTopicDescriberImpl's answers, no racks.
    static final class Topics implements SubscribedTopicDescriber {
        final Map<Uuid, Integer> partitions = new HashMap<>();

        @Override public int numPartitions(Uuid topicId) { return partitions.getOrDefault(topicId, -1); }
        @Override public Set<String> racksForPartition(Uuid topicId, int partition) { return Collections.emptySet(); }
    }

    // Deterministic topic ids (Kafka's benchmark draws random ones).
    static List<Uuid> topicIds(int count) {
        List<Uuid> ids = new ArrayList<>();
        for (int t = 0; t < count; ++t) ids.add(new Uuid(0x5eed000000000000L + t, (t + 1) * 0x9E3779B97F4A7C15L));
        return ids;
    }

    static Topics describe(List<Uuid> ids, int perTopic) {
        Topics d = new Topics();
        for (Uuid id : ids) d.partitions.put(id, perTopic);
        return d;
    }

    static Map<Uuid, Map<Integer, String>> invert(Map<String, ? extends MemberAssignment> members) {
        Map<Uuid, Map<Integer, String>> out = new HashMap<>();
        for (Map.Entry<String, ? extends MemberAssignment> e : members.entrySet())
            for (Map.Entry<Uuid, Set<Integer>> t : e.getValue().partitions().entrySet()) {
                Map<Integer, String> m = out.computeIfAbsent(t.getKey(), k -> new HashMap<>());
                for (Integer p : t.getValue()) m.put(p, e.getKey());
            }
        return out;
    }

    // The spec after `assignor` answered `spec`: every member owns its answer.
    static Map<String, Member> owning(Spec spec, GroupAssignment answer) {
        Map<String, Member> out = new HashMap<>();
        for (Map.Entry<String, Member> e : spec.members.entrySet()) {
            MemberAssignment a = answer.members().get(e.getKey());
            out.put(e.getKey(), new Member(e.getValue().topics,
                a == null ? Collections.emptyMap() : Collections.unmodifiableMap(a.partitions())));
        }
        return out;
    }

    // `tools/bench assignors` or `tools/bench kafka-grid` output, run in the
    // same minutes: each row's key (its first `keyColumns` words) -> its
    // figures (the words after the key that read as numbers).
    static Map<String, double[]> against(String path, int keyColumns) {
        if (path == null) return new HashMap<>();
        try {
            return parseOurs(Files.readAllLines(Paths.get(path)), keyColumns);
        } catch (IOException e) {
            throw new IllegalArgumentException("--against: cannot read " + path + " (" + e.getClass().getSimpleName() + ")");
        }
    }

    static Map<String, double[]> parseOurs(List<String> lines, int keyColumns) {
        Map<String, double[]> out = new HashMap<>();
        for (String line : lines) {
            String[] w = line.trim().split("\\s+");
            if (w.length <= keyColumns || !(w[0].equals("uniform") || w[0].equals("server-range"))) continue;
            List<Double> figures = new ArrayList<>();
            for (int i = keyColumns; i < w.length; ++i) {
                try {
                    figures.add(Double.parseDouble(w[i]));
                } catch (NumberFormatException e) {
                    break;
                }
            }
            double[] f = new double[figures.size()];
            for (int i = 0; i < f.length; ++i) f[i] = figures.get(i);
            out.put(String.join(" ", Arrays.copyOf(w, keyColumns)), f);
        }
        return out;
    }

    static String key(Object... words) {
        StringBuilder b = new StringBuilder();
        for (Object w : words) b.append(b.length() == 0 ? "" : " ").append(w);
        return b.toString();
    }

    // " ours x.xxx  java/ours y.y" when the row is in `ours`, at figure `i`.
    static String versus(Map<String, double[]> ours, String key, int i, double java) {
        return versus(ours, key, i, java, "%10.3f");
    }

    static String versus(Map<String, double[]> ours, String key, int i, double java, String format) {
        double[] f = ours.get(key);
        if (f == null || f.length <= i || f[i] <= 0) return "";
        return String.format(" " + format + " %9.1fx", f[i], java / f[i]);
    }

    static double nowMs() { return System.nanoTime() / 1e6; }

    static double medianBatchedMs(Runnable f, int repeats) {
        return medianBatchedMs(f, repeats, 1);
    }

    // `rounds` medians one after another, the lowest: see the file's head.
    static double medianBatchedMs(Runnable f, int repeats, int rounds) {
        final double warmEnd = nowMs() + 2000.0;
        int calls = 0;
        while (nowMs() < warmEnd || calls < 20) { f.run(); ++calls; }
        double t0 = nowMs();
        f.run();
        double once = nowMs() - t0;
        int batch = Math.max(1, (int) (5.0 / Math.max(once, 1e-3)));
        double lowest = Double.MAX_VALUE;
        for (int round = 0; round < rounds; ++round) {
            double[] samples = new double[repeats];
            for (int i = 0; i < repeats; ++i) {
                t0 = nowMs();
                for (int b = 0; b < batch; ++b) f.run();
                samples[i] = (nowMs() - t0) / batch;
            }
            Arrays.sort(samples);
            lowest = Math.min(lowest, samples[repeats / 2]);
        }
        return lowest;
    }

    static PartitionAssignor assignor(String name) {
        switch (name) {
            case "uniform": return new UniformAssignor();
            case "server-range": return new RangeAssignor();
            default: throw new IllegalArgumentException("unknown assignor " + name + " (uniform, server-range)");
        }
    }

    // ---- tools/bench assignors: M members on P partitions over T topics, every
    // member subscribed to all; fresh, and after one leaves (everybody owns
    // what the fresh answer gave it, the last member is gone and so is its
    // part of the inverted target assignment).
    static void assignors(List<String> names, Map<String, double[]> ours) {
        int[][] sizes = {{10, 1000}, {100, 10000}, {1000, 100000}};
        System.out.println("Kafka's assignors (Java): median ms (fresh / after one member leaves), each sample a batch of calls, as JMH"
            + (ours.isEmpty() ? "" : "; ours from --against, and Java's time over ours"));
        System.out.printf("  %-12s %6s %7s %6s %10s %10s %12s%s%n", "assignor", "members", "partitions", "topics", "fresh", "one leaves", "us/partition",
            ours.isEmpty() ? "" : String.format(" %10s %10s %10s %10s", "ours", "java/ours", "ours", "java/ours"));
        for (String name : names) {
            PartitionAssignor a = assignor(name);
            for (int topics : new int[] {1, 100}) {
                for (int[] size : sizes) {
                    int members = size[0], partitions = size[1];
                    int repeats = partitions >= 100000 ? 7 : 21;
                    List<Uuid> ids = topicIds(topics);
                    Topics d = describe(ids, partitions / topics);
                    Set<Uuid> all = Collections.unmodifiableSet(new HashSet<>(ids));
                    Map<String, Member> fresh = new HashMap<>();
                    List<String> order = new ArrayList<>();
                    for (int m = 0; m < members; ++m) {
                        String id = String.format("consumer-%04d-%08x", m, (m * 2654435761L) & 0xffffffffL);
                        order.add(id);
                        fresh.put(id, new Member(all, Collections.emptyMap()));
                    }
                    Spec freshSpec = new Spec(fresh, SubscriptionType.HOMOGENEOUS, Collections.emptyMap());
                    Map<String, Member> later = owning(freshSpec, a.assign(freshSpec, d));
                    later.remove(order.get(members - 1));
                    Spec laterSpec = new Spec(later, SubscriptionType.HOMOGENEOUS, invert(later));
                    double f = medianBatchedMs(() -> a.assign(freshSpec, d), repeats);
                    double l = medianBatchedMs(() -> a.assign(laterSpec, d), repeats);
                    String k = key(name, members, partitions, topics);
                    System.out.printf("  %-12s %7d %10d %6d %10.3f %10.3f %12.3f%s%s%n", name, members, partitions, topics, f, l, f * 1000.0 / partitions,
                        versus(ours, k, 0, f), versus(ours, k, 1, l));
                    System.out.flush();
                }
            }
        }
    }

    // ---- tools/bench kafka-grid: the GroupSpecs of Kafka's
    // ServerSideAssignorBenchmark (not rack-aware), as bench.cpp builds them.
    static List<Set<Uuid>> subscriptions(int members, List<Uuid> topics, boolean heterogeneous) {
        List<Set<Uuid>> out = new ArrayList<>();
        if (!heterogeneous) {
            Set<Uuid> all = Collections.unmodifiableSet(new HashSet<>(topics));
            for (int i = 0; i < members; ++i) out.add(all);
            return out;
        }
        int buckets = Math.min(5, members);
        int topicsPer = (topics.size() + buckets - 1) / buckets, membersPer = (members + buckets - 1) / buckets;
        for (int i = 0; i < members; ++i) out.add(null);
        for (int b = 0; b < buckets; ++b) {
            Set<Uuid> bucket = Collections.unmodifiableSet(new HashSet<>(topics.subList(b * topicsPer, Math.min((b + 1) * topicsPer, topics.size()))));
            for (int i = b * membersPer; i < Math.min((b + 1) * membersPer, members); ++i) out.set(i, bucket);
        }
        return out;
    }

    static Spec kafkaGroup(PartitionAssignor a, Topics d, List<Uuid> topics, int members, boolean heterogeneous, boolean incremental) {
        SubscriptionType type = heterogeneous ? SubscriptionType.HETEROGENEOUS : SubscriptionType.HOMOGENEOUS;
        int existing = incremental ? members - 1 : members;
        List<Set<Uuid>> subs = subscriptions(existing, topics, heterogeneous);
        Map<String, Member> m = new HashMap<>();
        for (int i = 0; i < existing; ++i) m.put("member" + i, new Member(subs.get(i), Collections.emptyMap()));
        Spec spec = new Spec(m, type, Collections.emptyMap());
        if (!incremental) return spec;
        GroupAssignment first = a.assign(spec, d);
        Map<String, Member> owned = owning(spec, first);
        owned.put("newMember", new Member(subs.get(existing - 1), Collections.emptyMap()));
        return new Spec(owned, type, invert(first.members()));
    }

    static List<Integer> ints(String flag, String csv) {
        List<Integer> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            try {
                int v = Integer.parseInt(s.trim());
                if (v <= 0) throw new NumberFormatException();
                out.add(v);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + ": expected positive numbers separated by commas, got '" + csv + "'");
            }
        }
        return out;
    }

    // Ours for one chunk of the grid (an assignor at one member count),
    // run as a child process: the lines `tools/bench kafka-grid` prints.
    static List<String> runOurs(String command, String name, int members, List<Integer> ratios, List<Integer> topics) {
        List<String> cmd = List.of(command, "kafka-grid", "--assignors", name, "--members", Integer.toString(members),
            "--ratios", csv(ratios), "--topics", csv(topics));
        Process p = null;
        try {
            p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            List<String> lines;
            try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream()))) {
                lines = r.lines().collect(java.util.stream.Collectors.toList());
            }
            int rc = p.waitFor();
            if (rc != 0) throw new IllegalStateException(String.join(" ", cmd) + " exited with " + rc);
            return lines;
        } catch (java.io.UncheckedIOException e) {  // reading its output failed (lines() wraps the IOException)
            throw new IllegalStateException("cannot read the output of " + String.join(" ", cmd) + " (" + e.getCause().getClass().getSimpleName() + ")");
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", cmd) + " (" + e.getClass().getSimpleName() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for " + String.join(" ", cmd));
        } finally {
            if (p != null && p.isAlive()) p.destroyForcibly();  // no child left running when reading it failed
        }
    }

    static String csv(List<Integer> values) {
        StringBuilder b = new StringBuilder();
        for (int v : values) b.append(b.length() == 0 ? "" : ",").append(v);
        return b.toString();
    }

    // The geometric mean of after / before over the rows both have (ms, figure 1).
    static double drift(Map<String, double[]> before, Map<String, double[]> after, int[] points) {
        double sum = 0;
        int n = 0;
        for (Map.Entry<String, double[]> e : before.entrySet()) {
            double[] a = after.get(e.getKey());
            if (a == null || a.length < 2 || e.getValue().length < 2 || a[1] <= 0 || e.getValue()[1] <= 0) continue;
            sum += Math.log(a[1] / e.getValue()[1]);
            ++n;
        }
        points[0] = n;
        return n == 0 ? 1.0 : Math.exp(sum / n);
    }

    // In a fresh JVM the grid's first point took 0.121 ms, 0.014 after a
    // warm-up: each assignor is called on groups of the fewest members at
    // the lowest ratio (on the first topic count that gives them
    // partitions), homogeneous and heterogeneous, full and incremental, a
    // second each, before anything is timed.
    static void warmUp(List<String> names, List<Integer> memberCounts, List<Integer> ratios, List<Integer> topicCounts) {
        int members = Collections.min(memberCounts), ratio = Collections.min(ratios);
        for (String name : names) {
            PartitionAssignor a = assignor(name);
            for (int topics : topicCounts) {
                int perTopic = members * ratio / topics;
                if (perTopic == 0) continue;
                List<Uuid> ids = topicIds(topics);
                Topics d = describe(ids, perTopic);
                for (boolean heterogeneous : new boolean[] {false, true})
                    for (boolean incremental : new boolean[] {false, true}) {
                        Spec g = kafkaGroup(a, d, ids, members, heterogeneous, incremental);
                        final double end = nowMs() + 1000.0;
                        while (nowMs() < end) a.assign(g, d);
                    }
                break;
            }
        }
    }

    // ourCommand null: ours from --against (one run before Java's). Given
    // (--interleaved in tools/bench-java): the grid is taken a chunk at a
    // time, an assignor at one member count, ours run just before and just
    // after Java's chunk; the ratios are against the run before, and a line
    // per chunk at the end gives ours after over ours before (far from 1:
    // the machine changed speed within the chunk). Rows are printed in the
    // grid's order when all are taken (progress on stderr); `oursOut`, if
    // given, receives our rows (the runs before) in the same order.
    static void kafkaGrid(List<Integer> memberCounts, List<Integer> ratios, List<Integer> topicCounts, List<String> names,
                          Map<String, double[]> against, String oursCommand, String oursOut) {
        boolean versusOurs = !against.isEmpty() || oursCommand != null;
        String title = "Kafka's ServerSideAssignorBenchmark grid (not rack-aware), Kafka's assignors (Java): ms of assign(), the lowest of three medians (each sample a batch of calls, as JMH)"
            + (oursCommand != null ? "; ours run just before each chunk (an assignor at one member count), and Java's time over ours"
               : versusOurs ? "; ours from --against, and Java's time over ours" : "");
        String header = String.format("  %-12s %-13s %-11s %7s %5s %6s %10s %10s%s", "assignor", "subscription", "assignment", "members", "ratio", "topics", "partitions", "ms",
            versusOurs ? String.format(" %10s %10s", "ours", "java/ours") : "");
        warmUp(names, memberCounts, ratios, topicCounts);
        // By the point's place in the grid: its key (the first six words) and its row.
        java.util.TreeMap<List<Integer>, String[]> rows = new java.util.TreeMap<>((x, y) -> {
            for (int i = 0; i < x.size(); ++i) if (!x.get(i).equals(y.get(i))) return Integer.compare(x.get(i), y.get(i));
            return 0;
        });
        Map<String, String> oursRows = new HashMap<>();
        List<String> oursHeader = new ArrayList<>();
        List<String> drifts = new ArrayList<>();
        for (int n = 0; n < names.size(); ++n) {
            String name = names.get(n);
            PartitionAssignor a = assignor(name);
            for (int mi = 0; mi < memberCounts.size(); ++mi) {
                int members = memberCounts.get(mi);
                Map<String, double[]> ours = against;
                if (oursCommand != null) {
                    List<String> lines = runOurs(oursCommand, name, members, ratios, topicCounts);
                    if (oursHeader.isEmpty()) oursHeader.addAll(lines.subList(0, Math.min(2, lines.size())));
                    for (String line : lines.subList(Math.min(2, lines.size()), lines.size())) {
                        String[] w = line.trim().split("\\s+");
                        if (w.length > 6) oursRows.put(String.join(" ", Arrays.copyOf(w, 6)), line);
                    }
                    ours = parseOurs(lines, 6);
                }
                int points = 0;
                for (int h = 0; h < 2; ++h)
                    for (int inc = 0; inc < 2; ++inc)
                        for (int ri = 0; ri < ratios.size(); ++ri)
                            for (int ti = 0; ti < topicCounts.size(); ++ti) {
                                boolean heterogeneous = h == 1, incremental = inc == 1;
                                int ratio = ratios.get(ri), topics = topicCounts.get(ti);
                                int perTopic = members * ratio / topics;
                                if (perTopic == 0) continue;
                                List<Uuid> ids = topicIds(topics);
                                Topics d = describe(ids, perTopic);
                                Spec g = kafkaGroup(a, d, ids, members, heterogeneous, incremental);
                                int partitions = perTopic * topics;
                                double ms = medianBatchedMs(() -> a.assign(g, d), partitions >= 100000 ? 5 : 15, 3);
                                String subscription = heterogeneous ? "heterogeneous" : "homogeneous";
                                String assignment = incremental ? "incremental" : "full";
                                String key = key(name, subscription, assignment, members, ratio, topics);
                                List<Integer> order = List.of(n, h, inc, mi, ri, ti);  // the grid's order
                                rows.put(order, new String[] {key, String.format("  %-12s %-13s %-11s %7d %5d %6d %10d %10.4f%s", name, subscription, assignment,
                                    members, ratio, topics, partitions, ms, versus(ours, key, 1, ms, "%10.4f"))});
                                ++points;
                            }
                String progress = String.format("%s at %d members: %d points", name, members, points);
                if (oursCommand != null) {
                    int[] compared = {0};
                    double moved = drift(ours, parseOurs(runOurs(oursCommand, name, members, ratios, topicCounts), 6), compared);
                    String line = String.format("%s at %d members: ours after / before the chunk %.2fx over %d points", name, members, moved, compared[0]);
                    drifts.add("  # " + line);
                    progress = line;
                }
                System.err.println("bench-java: " + progress);
            }
        }
        System.out.println(title);
        System.out.println(header);
        for (String[] row : rows.values()) System.out.println(row[1]);
        for (String line : drifts) System.out.println(line);
        if (oursOut != null) {
            List<String> out = new ArrayList<>(oursHeader);
            for (String[] row : rows.values()) if (oursRows.containsKey(row[0])) out.add(oursRows.get(row[0]));
            try {
                Files.write(Paths.get(oursOut), out);
            } catch (IOException e) {
                throw new IllegalStateException("--ours: cannot write " + oursOut + " (" + e.getClass().getSimpleName() + ")");
            }
        }
    }

    static String option(List<String> args, String flag, String fallback) {
        int i = args.indexOf(flag);
        if (i < 0) return fallback;
        if (i + 1 >= args.size()) throw new IllegalArgumentException(flag + " needs a value");
        String v = args.get(i + 1);
        args.subList(i, i + 2).clear();
        return v;
    }

    public static void main(String[] argv) {
        List<String> args = new ArrayList<>(Arrays.asList(argv));
        String what = args.isEmpty() ? "assignors" : args.remove(0);
        try {
            if (what.equals("assignors")) {
                Map<String, double[]> ours = against(option(args, "--against", null), 4);
                assignors(args.isEmpty() ? List.of("uniform", "server-range") : args, ours);
            } else if (what.equals("kafka-grid")) {
                List<Integer> members = ints("--members", option(args, "--members", "100,500,1000,5000,10000"));
                List<Integer> ratios = ints("--ratios", option(args, "--ratios", "5,10,50"));
                List<Integer> topics = ints("--topics", option(args, "--topics", "10,100,1000"));
                List<String> names = Arrays.asList(option(args, "--assignors", "server-range,uniform").split(","));
                String againstPath = option(args, "--against", null);
                Map<String, double[]> ours = against(againstPath, 6);
                String oursCommand = option(args, "--ours-command", null), oursOut = option(args, "--ours", null);
                if (oursCommand != null && againstPath != null) throw new IllegalArgumentException("--against and --ours-command (--interleaved) exclude each other");
                if (oursOut != null && oursCommand == null) throw new IllegalArgumentException("--ours needs --interleaved (--ours-command)");
                if (oursOut != null) {  // found unwritable now, not after the grid's twenty minutes
                    try {
                        Files.write(Paths.get(oursOut), List.of());
                    } catch (IOException e) {
                        throw new IllegalArgumentException("--ours: cannot write " + oursOut + " (" + e.getClass().getSimpleName() + ")");
                    }
                }
                if (!args.isEmpty()) throw new IllegalArgumentException("unknown argument " + args.get(0));
                kafkaGrid(members, ratios, topics, names, ours, oursCommand, oursOut);
            } else {
                throw new IllegalArgumentException("unknown benchmark '" + what + "' (known: assignors, kafka-grid)");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("bench-java: " + e.getMessage());
            System.exit(2);
        } catch (IllegalStateException e) {
            System.err.println("bench-java: " + e.getMessage());
            System.exit(1);
        }
    }
}
