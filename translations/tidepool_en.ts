<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>Labels</name>
    <message>
        <source>x86-64</source>
        <translation>x86-64</translation>
    </message>
    <message>
        <source>AArch64</source>
        <translation>AArch64</translation>
    </message>
    <message>
        <source>RISC-V 64</source>
        <translation>RISC-V 64</translation>
    </message>
    <message>
        <source>hot</source>
        <translation>hot</translation>
    </message>
    <message>
        <source>warm</source>
        <translation>warm</translation>
    </message>
    <message>
        <source>cold</source>
        <translation>cold</translation>
    </message>
    <message>
        <source>any</source>
        <translation>any</translation>
    </message>
    <message>
        <source>joining</source>
        <translation>joining</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>ready</translation>
    </message>
    <message>
        <source>suspect</source>
        <translation>suspect</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>lost</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>pending</translation>
    </message>
    <message>
        <source>launching</source>
        <translation>launching</translation>
    </message>
    <message>
        <source>running</source>
        <translation>running</translation>
    </message>
    <message>
        <source>stopping</source>
        <translation>stopping</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>succeeded</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>failed</translation>
    </message>
    <message>
        <source>killed</source>
        <translation>killed</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>out of memory</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>cancelled</translation>
    </message>
    <message>
        <source>GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>NPU</source>
        <translation>NPU</translation>
    </message>
    <message>
        <source>FPGA</source>
        <translation>FPGA</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>quota shift</source>
        <translation>quota shift</translation>
    </message>
    <message>
        <source>power down</source>
        <translation>power down</translation>
    </message>
    <message>
        <source>power up</source>
        <translation>power up</translation>
    </message>
    <message>
        <source>lend accelerators</source>
        <translation>lend accelerators</translation>
    </message>
    <message>
        <source>reclaim accelerators</source>
        <translation>reclaim accelerators</translation>
    </message>
    <message>
        <source>consolidate</source>
        <translation>consolidate</translation>
    </message>
    <message>
        <source>migrate</source>
        <translation>migrate</translation>
    </message>
    <message>
        <source>defer batch</source>
        <translation>defer batch</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>waiting</translation>
    </message>
    <message>
        <source>approved</source>
        <translation>approved</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>rejected</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>expired</translation>
    </message>
    <message>
        <source>applied</source>
        <translation>applied</translation>
    </message>
    <message>
        <source>low</source>
        <translation>low</translation>
    </message>
    <message>
        <source>medium</source>
        <translation>medium</translation>
    </message>
    <message>
        <source>high</source>
        <translation>high</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>unlimited</source>
        <translation>unlimited</translation>
    </message>
    <message>
        <source>%1 cores</source>
        <translation>%1 cores</translation>
    </message>
    <message>
        <source>%1 GiB</source>
        <translation>%1 GiB</translation>
    </message>
    <message>
        <source>off</source>
        <translation>off</translation>
    </message>
    <message>
        <source>booting</source>
        <translation>booting</translation>
    </message>
    <message>
        <source>right-size</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU %1 at the 90th percentile, %2 at most</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU %1 at most</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measured %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; memory %2 at most</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>over %n hour(s)</source>
        <translation>
            <numerusform>over %n hour</numerusform>
            <numerusform>over %n hours</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>over %n minute(s)</source>
        <translation>
            <numerusform>over %n minute</numerusform>
            <numerusform>over %n minutes</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MoveText</name>
    <message>
        <source>node out of service</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not in the workload&apos;s pool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reserved for the forecast peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wrong ISA and no translation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no accelerator of the requested kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>wrong accelerator model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not enough free accelerator share</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not enough free CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not enough free memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not enough memory bandwidth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not enough network bandwidth</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>its pool&apos;s quota is used up</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>refused by a scheduling policy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workload %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the %1 tier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>node %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2 of %3 nodes)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 moved to node %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot move to %2: %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot move to %2: its pool keeps its workloads on the %3 tier.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is on %2 already.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot move: it has ended or is stopping.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 no longer exists.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot move to %2: there is no such node.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 was not moved: the core cannot save changes now (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 was moved but the move could not be saved (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 was not moved: the core has stopped.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 was not moved: moving workloads is not supported over the API yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 was not moved: the core is still starting.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 was not moved: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pool %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 moved to node %2 in pool %3.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot move into pool %2: its quota cannot hold it (%3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is in pool %2 already.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cannot move into pool %2: there is no such pool.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 was not moved: tidepoold could not be reached (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>its pool&apos;s tier or its latency class keeps it off this tier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not enough free accelerator memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>another workload runs under its id there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not enough idle accelerators for whole devices (a shared one does not count)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PlanStep</name>
    <message>
        <source>Set pool %1&apos;s %2 from %3 to %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take %1 of pool %2&apos;s %3 (it keeps at least %4)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Give %1 back to pool %2&apos;s %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU quota</source>
        <translation type="unfinished">CPU quota</translation>
    </message>
    <message>
        <source>memory quota</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 share units</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 quota</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cordon node %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Uncordon node %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reserve hot node %1 for the peak (the batch on it stops)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drain hot node %1 for the peak (no new batch; the batch there runs on)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop the batch still on reserved hot node %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lend hot node %1 to batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hold deferrable batch until %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lift the hold on deferrable batch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move workload %1 from node %2 to node %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Move workload %1 from node %2 device %3 to node %4 device %5 (share %6)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resize workload %1 on node %2 in place: CPU %3 → %4, memory %5 → %6</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Reason</name>
    <message>
        <source>pool %1 is forecast to need %2 (p90) around %3, %4 with %5% headroom, above its %6 quota of %7</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>raise it to %1 ahead of the peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>take %1 from pool %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>take %1 of capacity no quota holds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pool %1&apos;s forecast peak (%2 p90) fits its base %3 quota of %4 again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>give back the %1 it was raised by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hot-tier accelerator demand is forecast to reach %1 devices (p90) around %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>it is forecast to reach %1 devices (p90) around %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>power hot node %1 up again and reserve its %2 accelerators for it, rather than stop the batch on lent nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>reserve %1 more hot nodes (%2 devices) for it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>make room on %1 drained hot nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>move the %1 batch workloads on them to the cold tier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>drain %1 hot nodes (%2 devices) for it, starting no new batch there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>let the %1 batch workloads running there end on their own until then</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hot-tier accelerator demand is forecast to stay under %1 devices (p90) for the lookahead</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lend %1 reserved hot nodes (%2 devices) to batch until the next peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the grid&apos;s carbon intensity is %1 g/kWh now and forecast to fall to %2 g/kWh at %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>hold deferrable batch until then (each still starts by its own deadline)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 accelerators in service fall %2 short of the hot tier&apos;s forecast %1 peak with headroom and the %1 work waiting for them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>power node %1 up again for its %2 %3 accelerators</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the forecast %1 peak (%2 p90, %3 with headroom) exceeds the %4 of nodes in service</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the forecast %1 peak of work that may run only on %2 nodes (%3 p90, %4 with headroom) exceeds the %5 of %2 nodes in service</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>power node %1 up again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>node %1 has run nothing for %2 minutes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the rest of the cluster holds the forecast CPU peak (%1 p90) with headroom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the rest of the cluster holds the forecast CPU peak (%1 p90) and memory peak (%2 p90) with headroom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pools %1 are counted at the highest load of the last day: too little history for a forecast</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no %1 work waits, and the %2 left in service hold the hot tier&apos;s forecast %1 peak (%3 with headroom)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no %1 work waits, and the %2 left in service with no batch on them hold the hot tier&apos;s forecast %1 peak (%3 with headroom)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cordon it and power it down</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPUs are fragmented: moving %1 batch workloads that hold shares of partly used GPUs onto other partly used GPUs frees %2 whole GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>waiting work wants %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>each moved workload restarts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>node %1 runs at or above %2% CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>nodes %1 run at or above %2% CPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>move %1 batch workloads to the coolest nodes that take them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU</source>
        <translation type="unfinished">CPU</translation>
    </message>
    <message>
        <source>memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU</source>
        <translation type="unfinished">GPU</translation>
    </message>
    <message>
        <source>NPU</source>
        <translation type="unfinished">NPU</translation>
    </message>
    <message>
        <source>FPGA</source>
        <translation type="unfinished">FPGA</translation>
    </message>
    <message>
        <source>hot</source>
        <translation type="unfinished">hot</translation>
    </message>
    <message>
        <source>warm</source>
        <translation type="unfinished">warm</translation>
    </message>
    <message>
        <source>cold</source>
        <translation type="unfinished">cold</translation>
    </message>
    <message>
        <source>%1 mCPU</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 milli-devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 NPU cores</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 FPGA slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> or </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>; </source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: the p90 peak fits the raised %1 quota</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the p90 peak still exceeds the raised %1 quota: work will wait</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: the p90 peak with headroom fits the base %1 quota</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lowers it: the forecast peak finds reserved accelerators</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: what stays reserved holds the peak with 50% to spare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>what stays reserved holds the forecast peak with headroom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: only deferrable batch waits, and never past its deadline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lowers it: waiting work gets a place</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lowers it: more capacity for the peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: the rest holds twice the forecast peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the rest holds the forecast peak with %1% to spare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none for services: only batch moves; the moved batch loses the progress it did not checkpoint</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lowers it for what stays on the hot nodes; the moved batch restarts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the pool&apos;s %1 quota of %2 still holds it below its forecast need of %3: work will wait</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the peak also needs the %1 raise proposed with it: approve both</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>pool %1 keeps its workloads on the %2 tier; %3 of them still run on other tiers&apos; nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>move %1 of them to nodes of its tier that take them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>each moved workload restarts: a service among them is down while it does</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 running workloads of pool %2 used at most %3 and %4 together (each its peak over at least %5 hours), against the %6 and %7 they ask for</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ask for %1 and %2 instead: each its peak with %3% to spare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of them use more than they ask for</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>each is resized where it runs, without a restart; its limits stay</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>one that later needs more than its peak with the margin competes for what its node has spare</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>lowers it: what they use is held for them on their nodes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 more use more than they ask for, but their nodes or the pool&apos;s quota have no room to raise them now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 running workloads of pool %2 used %3 (each the %4th percentile of its CPU samples) and at most %5 (each its memory&apos;s peak) together over at least %6 hours, against the %7 and %8 they ask for</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ask for %1 and %2 instead: each of those with %3% to spare</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RemoteText</name>
    <message>
        <source>Cannot reach tidepoold at %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tidepoold at %1 refused the operator token (HTTP 401): check --token-file or TIDEPOOL_TOKEN_FILE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tidepoold at %1 answered HTTP %2: %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tidepoold at %1 sent an answer the console cannot read: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1; retrying in %2 s</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ViewLabels</name>
    <message>
        <source>placement</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>migration</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>requeued</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>stop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>finished</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>node state</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cordon</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>decision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>proposal</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>operator action</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU</source>
        <translation type="unfinished">CPU</translation>
    </message>
    <message>
        <source>memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU</source>
        <translation type="unfinished">GPU</translation>
    </message>
    <message>
        <source>NPU</source>
        <translation type="unfinished">NPU</translation>
    </message>
    <message>
        <source>FPGA</source>
        <translation type="unfinished">FPGA</translation>
    </message>
    <message>
        <source>pool %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 cores</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>restarted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>drain</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>Tidepool operator console</source>
        <translation>Tidepool operator console</translation>
    </message>
    <message>
        <source>Run a simulated heterogeneous fleet through the real core.</source>
        <translation>Run a simulated heterogeneous fleet through the real core.</translation>
    </message>
    <message>
        <source>The shared data folder (traces and load series).</source>
        <translation>The shared data folder (traces and load series).</translation>
    </message>
    <message>
        <source>Simulated days the demo runs (at least 2).</source>
        <translation>Simulated days the demo runs (at least 2).</translation>
    </message>
    <message>
        <source>Wall milliseconds per simulated minute.</source>
        <translation>Wall milliseconds per simulated minute.</translation>
    </message>
    <message>
        <source>--demo-days must be a whole number from 2 to 365</source>
        <translation>--demo-days must be a whole number from 2 to 365</translation>
    </message>
    <message>
        <source>--tick-ms must be a whole number from 0 to 60000</source>
        <translation>--tick-ms must be a whole number from 0 to 60000</translation>
    </message>
    <message>
        <source>Render every tab in English and Chinese, light and dark, to PNG files in DIR once proposals wait, then quit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 must be a port number from 0 to 65535</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write the join token file %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tidepool: made a join token for agents in %1 (give it to tidepool-agent --join-token-file)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot create the data folder %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--db: the folder %1 does not exist</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no operator token: give --token-file FILE or set TIDEPOOL_TOKEN_FILE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attach to the tidepoold the console was last attached to.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The operator token for --connect, first line of FILE (default $TIDEPOOL_TOKEN_FILE).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The port agents join the embedded core on (default 7070).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The join token agents authenticate with (default: made in the user&apos;s data folder).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Serve the embedded core&apos;s HTTP API on 127.0.0.1:PORT (needs --operator-token-file).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The operator tokens of the embedded core&apos;s HTTP API.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The embedded core&apos;s settings, a tidepoold JSON config file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--demo, --connect and --reconnect exclude each other</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--reconnect: the console has not been attached to a tidepoold yet; use --connect URL</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--%1 is for the embedded core (tidepool without --demo or --connect)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--token-file is for --connect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--api-port needs --operator-token-file: the API authenticates every caller</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tidepool: starting the embedded core; `tidepool --reconnect` attaches to %1 again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the demo is not started here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --demo: once proposals wait, write a report of the last simulated 24 hours to FILE (PDF, HTML or CSV by its extension), then quit.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The language of --report: en or zh_CN.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--report needs --demo (File → Export report… works in every mode)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--report and --screenshots are made one at a time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--report-language must be en or zh_CN</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--report: the file must end in .pdf, .html or .csv</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Attach to a running tidepoold through its API (http://HOST:PORT or https://HOST:PORT).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>With --connect https://…: the CA (PEM) the daemon&apos;s certificate must chain to (default $TIDEPOOL_CA, else the system&apos;s trust store).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--ca is for --connect https://…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The embedded core&apos;s store: a SQLite database, or a postgresql:// URL (default: a SQLite database in the user&apos;s data folder).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::AcceleratorsPage</name>
    <message>
        <source>%1 slots occupied</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 cores allocated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 share requested</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select up to %1 devices to chart them together</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Utilisation, requested share and memory over time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Who holds each device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>% of the device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 utilisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 memory used</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 memory allocated</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No accelerator to chart.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, </source>
        <translation type="unfinished">, </translation>
    </message>
    <message>
        <source>Share</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>free</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Charted: %1 (the last %2 samples)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Who held which slot of %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its holders hold %1 slots more than it has; those are not drawn.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::CheatSheet</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Focus the filter of the table in view</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Keys</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Does</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::CommandPalette</name>
    <message>
        <source>Command palette</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Type a command: a tab, a setting, an action…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ConsoleShell</name>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Go to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Command palette…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings › Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>System</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Light</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dark</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings › Theme</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export report…</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::DeviceHistoryModel</name>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Utilisation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requested share</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation type="unfinished">Memory used</translation>
    </message>
    <message>
        <source>Memory allocated</source>
        <translation type="unfinished">Memory allocated</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::DevicesModel</name>
    <message>
        <source>%1 · %2 %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation type="unfinished">%1 %2</translation>
    </message>
    <message>
        <source>, </source>
        <translation type="unfinished">, </translation>
    </message>
    <message>
        <source>%1 (pool %2): %3, %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The device&apos;s agent sends no utilisation.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The share the workloads on it requested (GPU share, NPU cores, FPGA slots)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The utilisation its agent measured: what the requested share achieved</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node</source>
        <translation type="unfinished">Node</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation type="unfinished">Kind</translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tier</source>
        <translation type="unfinished">Tier</translation>
    </message>
    <message>
        <source>Requested</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Achieved</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory allocated</source>
        <translation type="unfinished">Memory allocated</translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation type="unfinished">Memory used</translation>
    </message>
    <message>
        <source>Held by</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, in slots %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::EventsModel</name>
    <message>
        <source>approved</source>
        <translation type="unfinished">approved</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation type="unfinished">rejected</translation>
    </message>
    <message>
        <source>%1: refused (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cordon lifted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cordoned: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Kind</source>
        <translation type="unfinished">Kind</translation>
    </message>
    <message>
        <source>Subject</source>
        <translation type="unfinished">Subject</translation>
    </message>
    <message>
        <source>Change</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node</source>
        <translation type="unfinished">Node</translation>
    </message>
    <message>
        <source>By</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Detail</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>draining (cordoned: %1)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::EventsPage</name>
    <message>
        <source>All kinds</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show only events of one kind</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Kind:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 events</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::FilterBar</name>
    <message>
        <source>Filter (/): text or key=value, e.g. tier=hot state=ready</source>
        <translation>Filter (/): text or key=value, e.g. tier=hot state=ready</translation>
    </message>
    <message>
        <source>No column named %1</source>
        <translation>No column named %1</translation>
    </message>
    <message>
        <source>, </source>
        <translation>, </translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ForecastListModel</name>
    <message>
        <source>%1 · %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No forecast for this series: the rebalancer forecasts each pool&apos;s CPU and the hot tier&apos;s GPUs, once they have a day of history.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backtest of the %1 model: not run yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backtest of the %1 model failed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>—</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished">none</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation type="unfinished">%1 %</translation>
    </message>
    <message>
        <source>Series</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Resource</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forecast made</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backtest sMAPE</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Band coverage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Backtest of the %1 model on the history shown, %2 h ahead (%3 points): sMAPE %4 %, MASE %5, p10–p90 coverage %6 % (80 % nominal).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ForecastPointsModel</name>
    <message>
        <source>highest so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>forecast peak (p90)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Actual</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forecast</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>p10</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>p90</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Peak</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ForecastsPage</name>
    <message>
        <source>cores</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The pool or tier and the resource to show</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Actual</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forecast</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>p10–p90 band</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Peaks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Series:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: history and forecast</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No history yet: series appear once the core has recorded some.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::Languages</name>
    <message>
        <source>System language</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::LogsDialog</name>
    <message>
        <source>&amp;Refresh</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Output of %1 (workload %2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Standard output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Standard error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No core is connected.</source>
        <translation type="unfinished">No core is connected.</translation>
    </message>
    <message>
        <source>Asking the agent of its node…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>standard error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>standard output</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No output to show: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node %1 holds no %2 of it yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The end of what node %1 keeps of its %2 (%3 of it in all).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All of what node %1 keeps of its %2 (%3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show &amp;output…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your token&apos;s role (%1) may not read workloads&apos; output: that needs the %2 role.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Follow</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Following: asking again every %1 s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its agent is from before following output, so it cannot be followed: Refresh to read the end again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Following: %1; asking again every %2 s.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node %1&apos;s agent is from before following output, so it cannot be followed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It was launched again (launch %1, on node %2): its output from the beginning.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 were rotated out on node %2 before they could be read.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node %1 keeps less of it than was read (its record began again): from the beginning of what it keeps.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It has ended (%1): that is all of its %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Following its %1 on node %2: %3 read since.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Previous launch</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The output of its launch before the current one (restarted, moved, preempted, or placed again after its node was lost), from the node it ran on</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The end of what node %1 keeps of the %2 of its previous launch (launch %3; %4 of it in all).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All of what node %1 keeps of the %2 of its previous launch (launch %3; %4).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show what it writes as it writes it, until it has ended</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::MainWindow</name>
    <message>
        <source>Starting the core…</source>
        <translation>Starting the core…</translation>
    </message>
    <message>
        <source>Tidepool</source>
        <translation>Tidepool</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>Overview</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Nodes</translation>
    </message>
    <message>
        <source>Pools</source>
        <translation>Pools</translation>
    </message>
    <message>
        <source>Proposals</source>
        <translation>Proposals</translation>
    </message>
    <message>
        <source>Proposals (%1)</source>
        <translation>Proposals (%1)</translation>
    </message>
    <message>
        <source>demo (simulated fleet)</source>
        <translation>demo (simulated fleet)</translation>
    </message>
    <message>
        <source>%1 — %2 — the run has ended</source>
        <translation>%1 — %2 — the run has ended</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>The core failed: %1</source>
        <translation>The core failed: %1</translation>
    </message>
    <message>
        <source>Tiers</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accelerators</source>
        <translation type="unfinished">Accelerators</translation>
    </message>
    <message>
        <source>Forecasts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Events</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>embedded core</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>tidepoold at %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::NodeActions</name>
    <message>
        <source>Your token&apos;s role (%1) may not take nodes out of service or back: that needs the %2 role.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No core is connected.</source>
        <translation type="unfinished">No core is connected.</translation>
    </message>
    <message>
        <source>Draining node %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Asking the core about node %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node %1 was not changed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node %1 is cordoned (%2): no new work lands there; what runs there stays.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node %1 was not cordoned.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node %1 is uncordoned (it was: %2): new work may land there again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Node %1 is cordoned (%2); %n workload(s) moved off it.</source>
        <translation>
            <numerusform>Node %1 is cordoned (%2); %n workload moved off it.</numerusform>
            <numerusform>Node %1 is cordoned (%2); %n workloads moved off it.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n stay, for no other node takes them:</source>
        <translation>
            <numerusform>%n stays, for no other node takes it:</numerusform>
            <numerusform>%n stay, for no other node takes them:</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Cordon…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Uncordon</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Drain…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No new work lands on it; what runs there stays.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New work may land on it again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It is not cordoned.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cordons it and moves what runs there to other nodes: each is stopped and launched again there.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drain node %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cordon node %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Each workload on node %1 is stopped and launched again on another node that takes it. Why (optional, kept with the cordon and in the audit log)?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Why (optional, kept with the cordon and in the audit log)?</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Node %1 is cordoned (%2); %n workload(s) moved off it now.</source>
        <translation>
            <numerusform>Node %1 is cordoned (%2); %n workload moved off it now.</numerusform>
            <numerusform>Node %1 is cordoned (%2); %n workloads moved off it now.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more follow, each as one moved before runs on its new node.</source>
        <translation>
            <numerusform>%n more follows, as the one moved before runs on its new node.</numerusform>
            <numerusform>%n more follow, each as one moved before runs on its new node.</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing runs there now.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>At most how many of its workloads may be moving at once? The others run where they are until their turn. 0 moves them all at once.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::NodesModel</name>
    <message>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>Node</translation>
    </message>
    <message>
        <source>ISA</source>
        <translation>ISA</translation>
    </message>
    <message>
        <source>Tier</source>
        <translation>Tier</translation>
    </message>
    <message>
        <source>State</source>
        <translation>State</translation>
    </message>
    <message>
        <source>Cordon</source>
        <translation>Cordon</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CPU allocated</source>
        <translation>CPU allocated</translation>
    </message>
    <message>
        <source>CPU used</source>
        <translation>CPU used</translation>
    </message>
    <message>
        <source>Memory allocated</source>
        <translation>Memory allocated</translation>
    </message>
    <message>
        <source>Accelerators</source>
        <translation>Accelerators</translation>
    </message>
    <message>
        <source>Accelerators allocated</source>
        <translation>Accelerators allocated</translation>
    </message>
    <message>
        <source>Accelerators used</source>
        <translation>Accelerators used</translation>
    </message>
    <message>
        <source>Workloads</source>
        <translation>Workloads</translation>
    </message>
    <message numerus="yes">
        <source>%1 — draining: %2 moving (at most %3), %n moved</source>
        <translation>
            <numerusform>%1 — draining: %2 moving (at most %3), %n moved</numerusform>
            <numerusform>%1 — draining: %2 moving (at most %3), %n moved</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 — draining: %2 moving (as pools&apos; disruption budgets allow), %n moved</source>
        <translation>
            <numerusform>%1 — draining: %2 moving (as pools&apos; disruption budgets allow), %n moved</numerusform>
            <numerusform>%1 — draining: %2 moving (as pools&apos; disruption budgets allow), %n moved</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>tidepool::ui::OverviewPage</name>
    <message>
        <source>Cluster</source>
        <translation>Cluster</translation>
    </message>
    <message>
        <source>Clock:</source>
        <translation>Clock:</translation>
    </message>
    <message>
        <source>Nodes by ISA and state:</source>
        <translation>Nodes by ISA and state:</translation>
    </message>
    <message>
        <source>Accelerators:</source>
        <translation>Accelerators:</translation>
    </message>
    <message>
        <source>Workloads:</source>
        <translation>Workloads:</translation>
    </message>
    <message>
        <source>Pending workloads:</source>
        <translation>Pending workloads:</translation>
    </message>
    <message>
        <source>Proposals waiting:</source>
        <translation>Proposals waiting:</translation>
    </message>
    <message>
        <source>Tier occupancy (allocated)</source>
        <translation>Tier occupancy (allocated)</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Accelerators</source>
        <translation>Accelerators</translation>
    </message>
    <message>
        <source>%p %</source>
        <translation>%p %</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <source>, </source>
        <translation>, </translation>
    </message>
    <message>
        <source>no nodes</source>
        <translation>no nodes</translation>
    </message>
    <message>
        <source>%1 (the demo run has ended)</source>
        <translation>%1 (the demo run has ended)</translation>
    </message>
    <message>
        <source>%1 — read-only: %2</source>
        <translation>%1 — read-only: %2</translation>
    </message>
    <message>
        <source>none</source>
        <translation>none</translation>
    </message>
    <message>
        <source>%1 on %2</source>
        <translation>%1 on %2</translation>
    </message>
    <message>
        <source>%1 (active: %2)</source>
        <translation>%1 (active: %2)</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n node(s))</source>
        <translation>
            <numerusform>%1 (%n node)</numerusform>
            <numerusform>%1 (%n nodes)</numerusform>
        </translation>
    </message>
    <message>
        <source>Alerts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No alerts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node %1 is lost: its agent has not been heard from, and its workloads are being placed again.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node %1 is late: no heartbeat for a while; it takes no new work.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The store cannot be written (%1): changes are refused until it can.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Disk low: %1 free of %2 where the store lives (%3).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The free space of %1 cannot be read: %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Certificate %1 expires on %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Certificate %1 expired on %2: TLS peers refuse it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Certificate %1 cannot be read: %2.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: %2 %3</source>
        <translation type="unfinished">%1: %2 %3 {1:?}</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>tidepool::ui::PoolDialog</name>
    <message>
        <source>unlimited</source>
        <translation type="unfinished">unlimited</translation>
    </message>
    <message>
        <source> MB/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> Mbit/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Edit pool %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>New pool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>letters, digits, &apos;.&apos;, &apos;_&apos; and &apos;-&apos;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none: a cost row of its own in reports</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>any tier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> cores</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> GiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> milli-GPUs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> NPU cores</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> FPGA slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Business line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tier</source>
        <translation type="unfinished">Tier</translation>
    </message>
    <message>
        <source>CPU quota</source>
        <translation type="unfinished">CPU quota</translation>
    </message>
    <message>
        <source>Memory quota</source>
        <translation type="unfinished">Memory quota</translation>
    </message>
    <message>
        <source>Memory bandwidth quota</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Network quota</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU quota (1000 a GPU; 0: none)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>NPU quota (0: none)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FPGA quota (0: none)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>IO weight (100: the default)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no budget</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>How many of the pool&apos;s workloads drains and approved migrations may have moved and not running again at once; 0: none moves until a drain&apos;s deadline.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>workloads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>% of its workloads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A percentage follows the pool&apos;s size, rounded up: 10% of 4 workloads lets 1 move.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Disruption budget (moving at once)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::PoolsModel</name>
    <message>
        <source>Tier</source>
        <translation>Tier</translation>
    </message>
    <message>
        <source>Workloads</source>
        <translation>Workloads</translation>
    </message>
    <message>
        <source>CPU used</source>
        <translation>CPU used</translation>
    </message>
    <message>
        <source>CPU quota</source>
        <translation>CPU quota</translation>
    </message>
    <message>
        <source>Quota used</source>
        <translation>Quota used</translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation>Memory used</translation>
    </message>
    <message>
        <source>Memory quota</source>
        <translation>Memory quota</translation>
    </message>
    <message>
        <source>%1 devices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 Gb/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 GB/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workloads of this pool waiting for a place</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for a place</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU requested against the pool&apos;s quota; on a node row, against the node&apos;s CPU.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Business line / pool / node / workload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU requested</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory requested</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory bandwidth requested</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Network requested</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accelerators requested</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accelerators used</source>
        <translation type="unfinished">Accelerators used</translation>
    </message>
    <message>
        <source>%1 %2 of %3 share units</source>
        <translation>%1 %2 of %3 share units</translation>
    </message>
    <message>
        <source>Accelerator quota: %1</source>
        <translation>Accelerator quota: %1</translation>
    </message>
    <message>
        <source>%1 Mb/s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requested against the pool&apos;s quota; agents do not measure memory bandwidth.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requested against the pool&apos;s quota.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>As measured: what each pool&apos;s traffic class sent, on the nodes whose agent shapes its link, split among its workloads there by their requests; — where none does. The bar: against the quota (a pool), the pool&apos;s guarantee on the node (a node) or the request (a workload).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Network used</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No disruption budget: drains and approved migrations move any number of its workloads at once.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Disruption budget 0: drains and approved migrations move none of its workloads (a drain&apos;s deadline still does).</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Disruption budget: at most %n of its workloads moved by drains and approved migrations at once, until each runs again (%1 moving now).</source>
        <translation>
            <numerusform>Disruption budget: at most %n of its workloads moved by drains and approved migrations at once, until it runs again (%1 moving now).</numerusform>
            <numerusform>Disruption budget: at most %n of its workloads moved by drains and approved migrations at once, until each runs again (%1 moving now).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Disruption budget: %1% of its workloads, rounded up; at most %n of them moved by drains and approved migrations at once now, until each runs again (%2 moving now).</source>
        <translation>
            <numerusform>Disruption budget: %1% of its workloads, rounded up; at most %n of them moved by drains and approved migrations at once now, until it runs again (%2 moving now).</numerusform>
            <numerusform>Disruption budget: %1% of its workloads, rounded up; at most %n of them moved by drains and approved migrations at once now, until each runs again (%2 moving now).</numerusform>
        </translation>
    </message>
    <message>
        <source>As measured by the nodes&apos; agents: a workload&apos;s own use where its agent measures it, else its pool&apos;s use on its node (or the node&apos;s) split among the workloads there by their requests. The bar: against the quota (a pool), the node&apos;s capacity (a node) or the request (a workload).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::PoolsPage</name>
    <message>
        <source>Drag a workload onto another pool (the core picks the node) or onto a node of a pool. The core checks the target pool quota and the scheduling rules, then moves it or says why not.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not moved: no core is attached.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Moving workload %1 into pool %2…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Moving workload %1 into pool %2, onto node %3…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;New pool…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Edit pool…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Delete pool…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete pool %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Delete pool %1? The core refuses while any of its workloads has not ended; its history stays, and reports over the days it lived still count it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pool %1 unchanged: no core is attached.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Creating pool %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Changing pool %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Deleting pool %1…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pool %1 created.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pool %1 not created: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pool %1 changed.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pool %1 not changed: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pool %1 deleted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pool %1 not deleted: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your token&apos;s role (%1) may not %2: that needs the %3 role.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>create pools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>change pools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>delete pools</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>move workloads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select a pool first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The default pool holds the workloads that name no pool: it is never deleted.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ProposalDetail</name>
    <message>
        <source>Select a proposal to see why it was made and what it would change.</source>
        <translation>Select a proposal to see why it was made and what it would change.</translation>
    </message>
    <message>
        <source>&lt;h3&gt;#%1 %2 — %3&lt;/h3&gt;</source>
        <translation>&lt;h3&gt;#%1 %2 — %3&lt;/h3&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;State:&lt;/b&gt; %1 &amp;nbsp; &lt;b&gt;Risk:&lt;/b&gt; %2 &amp;nbsp; &lt;b&gt;Expires:&lt;/b&gt; %3&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;State:&lt;/b&gt; %1 &amp;nbsp; &lt;b&gt;Risk:&lt;/b&gt; %2 &amp;nbsp; &lt;b&gt;Expires:&lt;/b&gt; %3&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Why:&lt;/b&gt; %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;Why:&lt;/b&gt; %1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Predicted effect:&lt;/b&gt; %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;Predicted effect:&lt;/b&gt; %1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>none stated</source>
        <translation>none stated</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Service-level risk:&lt;/b&gt; %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;Service-level risk:&lt;/b&gt; %1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Plan:&lt;/b&gt;&lt;/p&gt;&lt;ol&gt;%1&lt;/ol&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;Plan:&lt;/b&gt;&lt;/p&gt;&lt;ol&gt;%1&lt;/ol&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Decided by&lt;/b&gt; %1 at %2&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;Decided by&lt;/b&gt; %1 at %2&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Outcome:&lt;/b&gt; %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;Outcome:&lt;/b&gt; %1&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ProposalsModel</name>
    <message>
        <source>utilisation %1 → %2</source>
        <translation>utilisation %1 → %2</translation>
    </message>
    <message>
        <source>%1 GPUs freed</source>
        <translation>%1 GPUs freed</translation>
    </message>
    <message>
        <source>%1 W saved</source>
        <translation>%1 W saved</translation>
    </message>
    <message>
        <source>%1 W added</source>
        <translation>%1 W added</translation>
    </message>
    <message>
        <source>%1 g CO₂/h</source>
        <translation>%1 g CO₂/h</translation>
    </message>
    <message>
        <source>, </source>
        <translation>, </translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Kind</translation>
    </message>
    <message>
        <source>State</source>
        <translation>State</translation>
    </message>
    <message>
        <source>Risk</source>
        <translation>Risk</translation>
    </message>
    <message>
        <source>Subject</source>
        <translation>Subject</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>Reason</translation>
    </message>
    <message>
        <source>Predicted effect</source>
        <translation>Predicted effect</translation>
    </message>
    <message>
        <source>Expires</source>
        <translation>Expires</translation>
    </message>
    <message>
        <source>Decided by</source>
        <translation>Decided by</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ProposalsPage</name>
    <message>
        <source>&amp;Approve</source>
        <translation>&amp;Approve</translation>
    </message>
    <message>
        <source>&amp;Reject</source>
        <translation>&amp;Reject</translation>
    </message>
    <message>
        <source>Comment (required to reject; kept in the audit log)</source>
        <translation>Comment (required to reject; kept in the audit log)</translation>
    </message>
    <message>
        <source>Select a proposal first.</source>
        <translation>Select a proposal first.</translation>
    </message>
    <message>
        <source>Only a waiting proposal can be decided; this one is %1.</source>
        <translation>Only a waiting proposal can be decided; this one is %1.</translation>
    </message>
    <message>
        <source>Waiting for the core to answer the previous decision.</source>
        <translation>Waiting for the core to answer the previous decision.</translation>
    </message>
    <message>
        <source>Write a comment saying why it is rejected.</source>
        <translation>Write a comment saying why it is rejected.</translation>
    </message>
    <message>
        <source>No core is connected.</source>
        <translation>No core is connected.</translation>
    </message>
    <message>
        <source>Approving proposal #%1…</source>
        <translation>Approving proposal #%1…</translation>
    </message>
    <message>
        <source>Rejecting proposal #%1…</source>
        <translation>Rejecting proposal #%1…</translation>
    </message>
    <message>
        <source>Proposal #%1 approved; now %2.</source>
        <translation>Proposal #%1 approved; now %2.</translation>
    </message>
    <message>
        <source>Proposal #%1 rejected; now %2.</source>
        <translation>Proposal #%1 rejected; now %2.</translation>
    </message>
    <message>
        <source>Proposal #%1 was not changed: %2</source>
        <translation>Proposal #%1 was not changed: %2</translation>
    </message>
    <message>
        <source>Your token&apos;s role (%1) may look but not decide: deciding proposals needs an operator or an admin token.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every open proposal and the newest %1 decided or expired ones. Older ones: tidepoolctl proposals --before ID, and the audit log.</source>
        <translation>Every open proposal and the newest %1 decided or expired ones. Older ones: tidepoolctl proposals --before ID, and the audit log.</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ReportDialog</name>
    <message>
        <source>Export report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation type="unfinished">Cluster</translation>
    </message>
    <message>
        <source>Business line</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tier</source>
        <translation type="unfinished">Tier</translation>
    </message>
    <message>
        <source>PDF</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTML</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CSV (spreadsheets)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>English</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Simplified Chinese</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From (UTC):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>To (UTC):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scope:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Name:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Format:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Language:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Hot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Warm</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cold</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PDF documents (*.pdf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Web pages (*.html)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the file to write the report to.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the %1 to report on.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The period is empty: “From” (%1) must be before “To” (%2).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The report cannot be made: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No core is running: the report cannot be made.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Preparing the report…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The report could not be made: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The report could not be saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Saved to %1</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ResizeDialog</name>
    <message>
        <source> cores</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> MiB</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished">none</translation>
    </message>
    <message>
        <source>Resize %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU request:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory request:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU limit:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Memory limit:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It waits for a place: it is placed at its new size.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It runs on %1: it is resized there, without a restart, if the node has room and its pool the quota.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>It uses %1 and %2 now, as its node measures it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No core is connected.</source>
        <translation type="unfinished">No core is connected.</translation>
    </message>
    <message>
        <source>Resizing…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not resized: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Resize…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your token&apos;s role (%1) may not resize workloads: that needs the %2 role.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::SlotTimelineModel</name>
    <message>
        <source>before %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 – %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1
Pool: %2
Slots held: %3
%4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Workload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pool</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Slots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>End</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::SlotTimelineView</name>
    <message>
        <source>Slot %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No slot history for this FPGA yet.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::TablePage</name>
    <message>
        <source>Columns</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::TiersModel</name>
    <message>
        <source>%1 %2</source>
        <translation type="unfinished">%1 %2</translation>
    </message>
    <message>
        <source>%1 nodes, %2 workloads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for a place</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 workloads; drop one on a node to place it there</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · %2, %3 allocated · %4 workloads</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation type="unfinished">%1 × %2</translation>
    </message>
    <message>
        <source>Workloads whose latency class belongs on this tier and that wait for a place</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Node %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cordoned: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 · %2 · %3</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (workload %2), pool %3, %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Waiting for a place on the %1 tier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>On node %1 (%2 tier)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Requests: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Core: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Moving…</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>restarted %n time(s)</source>
        <translation>
            <numerusform>restarted %n time</numerusform>
            <numerusform>restarted %n times</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Restarted %n time(s) by its restart policy</source>
        <translation>
            <numerusform>Restarted %n time by its restart policy</numerusform>
            <numerusform>Restarted %n times by its restart policy</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 h</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 d</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CPU %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>memory %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Its own limits: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>when it fails</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Restarted %1, at most %n time(s)</source>
        <translation>
            <numerusform>Restarted %1, at most %n time</numerusform>
            <numerusform>Restarted %1, at most %n times</numerusform>
        </translation>
    </message>
    <message>
        <source>Restarted %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stopped after running %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>whenever it ends</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>tidepool::ui::TiersPage</name>
    <message>
        <source>Drag a workload onto another tier (the core picks the node) or onto a node. The core checks the move against the scheduler&apos;s rules and either makes it or says why not.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 tier</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not moved: no core is attached.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Moved to %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your token&apos;s role (%1) may look but not move workloads: moving them needs the %2 role.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
