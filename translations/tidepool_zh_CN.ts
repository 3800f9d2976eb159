<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
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
        <translation>热</translation>
    </message>
    <message>
        <source>warm</source>
        <translation>温</translation>
    </message>
    <message>
        <source>cold</source>
        <translation>冷</translation>
    </message>
    <message>
        <source>any</source>
        <translation>任意</translation>
    </message>
    <message>
        <source>joining</source>
        <translation>加入中</translation>
    </message>
    <message>
        <source>ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <source>suspect</source>
        <translation>疑似失联</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>已失联</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>等待调度</translation>
    </message>
    <message>
        <source>launching</source>
        <translation>启动中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>stopping</source>
        <translation>停止中</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>已成功</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>killed</source>
        <translation>被终止</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>内存耗尽</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
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
        <translation>无</translation>
    </message>
    <message>
        <source>quota shift</source>
        <translation>配额调整</translation>
    </message>
    <message>
        <source>power down</source>
        <translation>关机</translation>
    </message>
    <message>
        <source>power up</source>
        <translation>开机</translation>
    </message>
    <message>
        <source>lend accelerators</source>
        <translation>借出加速器</translation>
    </message>
    <message>
        <source>reclaim accelerators</source>
        <translation>收回加速器</translation>
    </message>
    <message>
        <source>consolidate</source>
        <translation>整合</translation>
    </message>
    <message>
        <source>migrate</source>
        <translation>迁移</translation>
    </message>
    <message>
        <source>defer batch</source>
        <translation>推迟批处理</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>待审批</translation>
    </message>
    <message>
        <source>approved</source>
        <translation>已批准</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>expired</source>
        <translation>已过期</translation>
    </message>
    <message>
        <source>applied</source>
        <translation>已执行</translation>
    </message>
    <message>
        <source>low</source>
        <translation>低</translation>
    </message>
    <message>
        <source>medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>high</source>
        <translation>高</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1%</translation>
    </message>
    <message>
        <source>unlimited</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>%1 cores</source>
        <translation>%1 核</translation>
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
        <translation>Tidepool 运维控制台</translation>
    </message>
    <message>
        <source>Run a simulated heterogeneous fleet through the real core.</source>
        <translation>用真实的调度核心运行一个模拟的异构集群。</translation>
    </message>
    <message>
        <source>The shared data folder (traces and load series).</source>
        <translation>共享数据目录（轨迹与负载序列）。</translation>
    </message>
    <message>
        <source>Simulated days the demo runs (at least 2).</source>
        <translation>演示运行的模拟天数（至少 2 天）。</translation>
    </message>
    <message>
        <source>Wall milliseconds per simulated minute.</source>
        <translation>每个模拟分钟对应的实际毫秒数。</translation>
    </message>
    <message>
        <source>--demo-days must be a whole number from 2 to 365</source>
        <translation>--demo-days 必须是 2 到 365 之间的整数</translation>
    </message>
    <message>
        <source>--tick-ms must be a whole number from 0 to 60000</source>
        <translation>--tick-ms 必须是 0 到 60000 之间的整数</translation>
    </message>
    <message>
        <source>Render every tab to PNG files in DIR once proposals wait, then quit.</source>
        <translation>有待审批的建议后，将每个标签页渲染为 DIR 中的 PNG 文件，然后退出。</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::FilterBar</name>
    <message>
        <source>Filter (/): text or key=value, e.g. tier=hot state=ready</source>
        <translation>筛选（/）：文本或 键=值，例如 tier=hot state=ready</translation>
    </message>
    <message>
        <source>No column named %1</source>
        <translation>没有名为 %1 的列</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::MainWindow</name>
    <message>
        <source>Starting the core…</source>
        <translation>正在启动调度核心…</translation>
    </message>
    <message>
        <source>Tidepool</source>
        <translation>Tidepool</translation>
    </message>
    <message>
        <source>Overview</source>
        <translation>总览</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Pools</source>
        <translation>资源池</translation>
    </message>
    <message>
        <source>Proposals</source>
        <translation>调度建议</translation>
    </message>
    <message>
        <source>Proposals (%1)</source>
        <translation>调度建议（%1）</translation>
    </message>
    <message>
        <source>demo (simulated fleet)</source>
        <translation>演示（模拟集群）</translation>
    </message>
    <message>
        <source>%1 — %2 — the run has ended</source>
        <translation>%1 — %2 — 运行已结束</translation>
    </message>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>The core failed: %1</source>
        <translation>调度核心出错：%1</translation>
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
        <translation>节点</translation>
    </message>
    <message>
        <source>ISA</source>
        <translation>指令集</translation>
    </message>
    <message>
        <source>Tier</source>
        <translation>层级</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Cordon</source>
        <translation>隔离</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>CPU allocated</source>
        <translation>CPU 已分配</translation>
    </message>
    <message>
        <source>CPU used</source>
        <translation>CPU 已使用</translation>
    </message>
    <message>
        <source>Memory allocated</source>
        <translation>内存已分配</translation>
    </message>
    <message>
        <source>Accelerators</source>
        <translation>加速器</translation>
    </message>
    <message>
        <source>Accelerators allocated</source>
        <translation>加速器已分配</translation>
    </message>
    <message>
        <source>Accelerators used</source>
        <translation>加速器已使用</translation>
    </message>
    <message>
        <source>Workloads</source>
        <translation>工作负载</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::OverviewPage</name>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Clock:</source>
        <translation>时钟：</translation>
    </message>
    <message>
        <source>Nodes by ISA and state:</source>
        <translation>按指令集和状态统计的节点：</translation>
    </message>
    <message>
        <source>Accelerators:</source>
        <translation>加速器：</translation>
    </message>
    <message>
        <source>Workloads:</source>
        <translation>工作负载：</translation>
    </message>
    <message>
        <source>Pending workloads:</source>
        <translation>等待调度的工作负载：</translation>
    </message>
    <message>
        <source>Proposals waiting:</source>
        <translation>待审批的建议：</translation>
    </message>
    <message>
        <source>Tier occupancy (allocated)</source>
        <translation>各层级占用（已分配）</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Accelerators</source>
        <translation>加速器</translation>
    </message>
    <message>
        <source>%p %</source>
        <translation>%p%</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>no nodes</source>
        <translation>没有节点</translation>
    </message>
    <message>
        <source>%1 (the demo run has ended)</source>
        <translation>%1（演示运行已结束）</translation>
    </message>
    <message>
        <source>%1 — read-only: %2</source>
        <translation>%1 — 只读：%2</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>%1 on %2</source>
        <translation>%2 层 %1 个</translation>
    </message>
    <message>
        <source>%1 (active: %2)</source>
        <translation>%1（活动：%2）</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n node(s))</source>
        <translation>
            <numerusform>%1（%n 个节点）</numerusform>
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
        <translation>业务线 / 资源池 / 节点</translation>
    </message>
    <message>
        <source>Tier</source>
        <translation>层级</translation>
    </message>
    <message>
        <source>Workloads</source>
        <translation>工作负载</translation>
    </message>
    <message>
        <source>CPU used</source>
        <translation>CPU 已使用</translation>
    </message>
    <message>
        <source>CPU quota</source>
        <translation>CPU 配额</translation>
    </message>
    <message>
        <source>Quota used</source>
        <translation>配额使用率</translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation>内存已使用</translation>
    </message>
    <message>
        <source>Memory quota</source>
        <translation>内存配额</translation>
    </message>
    <message>
        <source>Accelerators used (devices)</source>
        <translation>加速器已使用（设备数）</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ProposalDetail</name>
    <message>
        <source>Select a proposal to see why it was made and what it would change.</source>
        <translation>选择一条建议，查看提出它的原因以及它将带来的变化。</translation>
    </message>
    <message>
        <source>&lt;h3&gt;#%1 %2 — %3&lt;/h3&gt;</source>
        <translation>&lt;h3&gt;#%1 %2 — %3&lt;/h3&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;State:&lt;/b&gt; %1 &amp;nbsp; &lt;b&gt;Risk:&lt;/b&gt; %2 &amp;nbsp; &lt;b&gt;Expires:&lt;/b&gt; %3&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;状态：&lt;/b&gt;%1 &amp;nbsp; &lt;b&gt;风险：&lt;/b&gt;%2 &amp;nbsp; &lt;b&gt;过期时间：&lt;/b&gt;%3&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Why:&lt;/b&gt; %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;原因：&lt;/b&gt;%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Predicted effect:&lt;/b&gt; %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;预计效果：&lt;/b&gt;%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>none stated</source>
        <translation>未说明</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Service-level risk:&lt;/b&gt; %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;服务等级风险：&lt;/b&gt;%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Plan:&lt;/b&gt;&lt;/p&gt;&lt;ol&gt;%1&lt;/ol&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;执行计划：&lt;/b&gt;&lt;/p&gt;&lt;ol&gt;%1&lt;/ol&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Decided by&lt;/b&gt; %1 at %2&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;决定人：&lt;/b&gt;%1，时间 %2&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;Outcome:&lt;/b&gt; %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;结果：&lt;/b&gt;%1&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ProposalsModel</name>
    <message>
        <source>utilisation %1 → %2</source>
        <translation>利用率 %1 → %2</translation>
    </message>
    <message>
        <source>%1 GPUs freed</source>
        <translation>释放 %1 块 GPU</translation>
    </message>
    <message>
        <source>%1 W saved</source>
        <translation>节省 %1 W</translation>
    </message>
    <message>
        <source>%1 W added</source>
        <translation>增加 %1 W</translation>
    </message>
    <message>
        <source>%1 g CO₂/h</source>
        <translation>%1 克 CO₂/小时</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Risk</source>
        <translation>风险</translation>
    </message>
    <message>
        <source>Subject</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Predicted effect</source>
        <translation>预计效果</translation>
    </message>
    <message>
        <source>Expires</source>
        <translation>过期时间</translation>
    </message>
    <message>
        <source>Decided by</source>
        <translation>决定人</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ProposalsPage</name>
    <message>
        <source>&amp;Approve</source>
        <translation>批准(&amp;A)</translation>
    </message>
    <message>
        <source>&amp;Reject</source>
        <translation>拒绝(&amp;R)</translation>
    </message>
    <message>
        <source>Comment (required to reject; kept in the audit log)</source>
        <translation>备注（拒绝时必填；记入审计日志）</translation>
    </message>
    <message>
        <source>Select a proposal first.</source>
        <translation>请先选择一条建议。</translation>
    </message>
    <message>
        <source>Only a waiting proposal can be decided; this one is %1.</source>
        <translation>只有待审批的建议可以决定；这一条的状态是“%1”。</translation>
    </message>
    <message>
        <source>Waiting for the core to answer the previous decision.</source>
        <translation>正在等待调度核心答复上一个决定。</translation>
    </message>
    <message>
        <source>Write a comment saying why it is rejected.</source>
        <translation>请填写拒绝的理由。</translation>
    </message>
    <message>
        <source>No core is connected.</source>
        <translation>没有连接调度核心。</translation>
    </message>
    <message>
        <source>Approving proposal #%1…</source>
        <translation>正在批准建议 #%1…</translation>
    </message>
    <message>
        <source>Rejecting proposal #%1…</source>
        <translation>正在拒绝建议 #%1…</translation>
    </message>
    <message>
        <source>Proposal #%1 approved; now %2.</source>
        <translation>建议 #%1 已批准；当前状态：%2。</translation>
    </message>
    <message>
        <source>Proposal #%1 rejected; now %2.</source>
        <translation>建议 #%1 已拒绝；当前状态：%2。</translation>
    </message>
    <message>
        <source>Proposal #%1 was not changed: %2</source>
        <translation>建议 #%1 未改变：%2</translation>
    </message>
</context>
</TS>
