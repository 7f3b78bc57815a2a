package dev.toolgate.examples.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of processes, for {@link ClientLatencyBenchmark}'s CPU per call: this JVM's, and that of
 * every {@link ClientBenchServer} process on the machine (Linux: the sum of its threads'
 * {@code /proc/PID/task/TID/schedstat}, in nanoseconds; 0 elsewhere).
 */
final class Cpu {

    private Cpu() {
    }

    /** This JVM's CPU time in nanoseconds. */
    static long self() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** The CPU time of every process running {@link ClientBenchServer}, in nanoseconds. */
    static long servers() {
        return ProcessHandle.allProcesses().filter(p -> commandLine(p.pid()).contains(ClientBenchServer.class.getName()))
                .mapToLong(p -> of(p.pid())).sum();
    }

    /** {@code /proc/PID/cmdline} (the JDK's {@code ProcessHandle.Info} leaves out long command lines). */
    private static String commandLine(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", String.valueOf(pid), "cmdline")), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** The CPU time of process {@code pid} in nanoseconds (0 if unknown). */
    static long of(long pid) {
        long total = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    total += Long.parseLong(Files.readString(task.resolve("schedstat")).split(" ")[0]);
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            return 0;
        }
        return total;
    }
}
