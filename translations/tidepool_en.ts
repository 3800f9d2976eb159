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
        <source>Render every tab to PNG files in DIR once proposals wait, then quit.</source>
        <translation>Render every tab to PNG files in DIR once proposals wait, then quit.</translation>
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
</context>
<context>
    <name>tidepool::ui::PoolsModel</name>
    <message>
        <source>%1</source>
        <translation>%1</translation>
    </message>
    <message>
        <source>Business line / pool / node</source>
        <translation>Business line / pool / node</translation>
    </message>
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
        <source>Accelerators used (devices)</source>
        <translation>Accelerators used (devices)</translation>
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
</context>
</TS>
