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
    <message>
        <source>off</source>
        <translation>已关机</translation>
    </message>
    <message>
        <source>booting</source>
        <translation>启动中</translation>
    </message>
    <message>
        <source>right-size</source>
        <translation>规格调整</translation>
    </message>
    <message>
        <source>CPU %1 at the 90th percentile, %2 at most</source>
        <translation>CPU 第 90 百分位 %1，最高 %2</translation>
    </message>
    <message>
        <source>CPU %1 at most</source>
        <translation>CPU 最高 %1</translation>
    </message>
    <message>
        <source>Measured %1: %2</source>
        <translation>%1的实测：%2</translation>
    </message>
    <message>
        <source>%1; memory %2 at most</source>
        <translation>%1；内存最高 %2</translation>
    </message>
    <message numerus="yes">
        <source>over %n hour(s)</source>
        <translation>
            <numerusform>%n 小时内</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>over %n minute(s)</source>
        <translation>
            <numerusform>%n 分钟内</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MoveText</name>
    <message>
        <source>node out of service</source>
        <translation>节点已停止服务</translation>
    </message>
    <message>
        <source>not in the workload&apos;s pool</source>
        <translation>不属于该工作负载的资源池</translation>
    </message>
    <message>
        <source>reserved for the forecast peak</source>
        <translation>已为预测峰值预留</translation>
    </message>
    <message>
        <source>wrong ISA and no translation</source>
        <translation>指令集不符且无法转译</translation>
    </message>
    <message>
        <source>no accelerator of the requested kind</source>
        <translation>没有所需类型的加速器</translation>
    </message>
    <message>
        <source>wrong accelerator model</source>
        <translation>加速器型号不符</translation>
    </message>
    <message>
        <source>not enough free accelerator share</source>
        <translation>空闲加速器份额不足</translation>
    </message>
    <message>
        <source>not enough free CPU</source>
        <translation>空闲 CPU 不足</translation>
    </message>
    <message>
        <source>not enough free memory</source>
        <translation>空闲内存不足</translation>
    </message>
    <message>
        <source>not enough memory bandwidth</source>
        <translation>内存带宽不足</translation>
    </message>
    <message>
        <source>not enough network bandwidth</source>
        <translation>网络带宽不足</translation>
    </message>
    <message>
        <source>its pool&apos;s quota is used up</source>
        <translation>其资源池配额已用尽</translation>
    </message>
    <message>
        <source>refused by a scheduling policy</source>
        <translation>被调度策略拒绝</translation>
    </message>
    <message>
        <source>Workload %1</source>
        <translation>工作负载 %1</translation>
    </message>
    <message>
        <source>the %1 tier</source>
        <translation>%1层</translation>
    </message>
    <message>
        <source>node %1</source>
        <translation>节点 %1</translation>
    </message>
    <message>
        <source>%1 (%2 of %3 nodes)</source>
        <translation>%1（%3 个节点中的 %2 个）</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>%1 moved to node %2.</source>
        <translation>%1 已迁移到节点 %2。</translation>
    </message>
    <message>
        <source>%1 cannot move to %2: %3.</source>
        <translation>%1 无法迁移到%2：%3。</translation>
    </message>
    <message>
        <source>%1 cannot move to %2: its pool keeps its workloads on the %3 tier.</source>
        <translation>%1 无法迁移到%2：其资源池将工作负载限定在%3层。</translation>
    </message>
    <message>
        <source>%1 is on %2 already.</source>
        <translation>%1 已在%2上。</translation>
    </message>
    <message>
        <source>%1 cannot move: it has ended or is stopping.</source>
        <translation>%1 无法迁移：它已结束或正在停止。</translation>
    </message>
    <message>
        <source>%1 no longer exists.</source>
        <translation>%1 已不存在。</translation>
    </message>
    <message>
        <source>%1 cannot move to %2: there is no such node.</source>
        <translation>%1 无法迁移到%2：没有这个节点。</translation>
    </message>
    <message>
        <source>%1 was not moved: the core cannot save changes now (%2).</source>
        <translation>%1 未迁移：调度核心当前无法保存更改（%2）。</translation>
    </message>
    <message>
        <source>%1 was moved but the move could not be saved (%2).</source>
        <translation>%1 已迁移，但迁移未能保存（%2）。</translation>
    </message>
    <message>
        <source>%1 was not moved: the core has stopped.</source>
        <translation>%1 未迁移：调度核心已停止。</translation>
    </message>
    <message>
        <source>%1 was not moved: moving workloads is not supported over the API yet.</source>
        <translation>%1 未移动：通过 API 移动工作负载尚不支持。</translation>
    </message>
    <message>
        <source>%1 was not moved: the core is still starting.</source>
        <translation>%1 未迁移：调度核心仍在启动。</translation>
    </message>
    <message>
        <source>%1 was not moved: %2</source>
        <translation>%1 未迁移：%2</translation>
    </message>
    <message>
        <source>pool %1</source>
        <translation>资源池 %1</translation>
    </message>
    <message>
        <source>%1 moved to node %2 in pool %3.</source>
        <translation>%1 已迁移到资源池 %3 的节点 %2。</translation>
    </message>
    <message>
        <source>%1 cannot move into pool %2: its quota cannot hold it (%3).</source>
        <translation>%1 无法迁移到资源池 %2：其配额容纳不下（%3）。</translation>
    </message>
    <message>
        <source>%1 is in pool %2 already.</source>
        <translation>%1 已在资源池 %2 中。</translation>
    </message>
    <message>
        <source>%1 cannot move into pool %2: there is no such pool.</source>
        <translation>%1 无法迁移到资源池 %2：没有这个资源池。</translation>
    </message>
    <message>
        <source>%1 was not moved: tidepoold could not be reached (%2).</source>
        <translation>%1 未迁移：无法连接 tidepoold（%2）。</translation>
    </message>
    <message>
        <source>its pool&apos;s tier or its latency class keeps it off this tier</source>
        <translation>其资源池的层级或其延迟等级不允许它运行在此层级</translation>
    </message>
    <message>
        <source>not enough free accelerator memory</source>
        <translation>加速器空闲显存不足</translation>
    </message>
    <message>
        <source>another workload runs under its id there</source>
        <translation>该节点上另一个工作负载占用了它的编号</translation>
    </message>
    <message>
        <source>not enough idle accelerators for whole devices (a shared one does not count)</source>
        <translation>整卡所需的空闲加速器不足（部分被占用的不计在内）</translation>
    </message>
</context>
<context>
    <name>PlanStep</name>
    <message>
        <source>Set pool %1&apos;s %2 from %3 to %4</source>
        <translation>将资源池 %1 的%2从 %3 调整为 %4</translation>
    </message>
    <message>
        <source>Take %1 of pool %2&apos;s %3 (it keeps at least %4)</source>
        <translation>从资源池 %2 的%3中取出 %1（至少保留 %4）</translation>
    </message>
    <message>
        <source>Give %1 back to pool %2&apos;s %3</source>
        <translation>将 %1 归还给资源池 %2 的%3</translation>
    </message>
    <message>
        <source>CPU quota</source>
        <translation>CPU 配额</translation>
    </message>
    <message>
        <source>memory quota</source>
        <translation>内存配额</translation>
    </message>
    <message>
        <source>%1 share units</source>
        <translation>%1 份额单位</translation>
    </message>
    <message>
        <source>%1 quota</source>
        <translation>%1 配额</translation>
    </message>
    <message>
        <source>Cordon node %1: %2</source>
        <translation>隔离节点 %1：%2</translation>
    </message>
    <message>
        <source>Uncordon node %1</source>
        <translation>解除隔离节点 %1</translation>
    </message>
    <message>
        <source>Reserve hot node %1 for the peak (the batch on it stops)</source>
        <translation>为高峰预留热层节点 %1（其上的批处理作业停止）</translation>
    </message>
    <message>
        <source>Drain hot node %1 for the peak (no new batch; the batch there runs on)</source>
        <translation>为高峰排空热层节点 %1（不再接收新的批处理作业；已在运行的继续运行）</translation>
    </message>
    <message>
        <source>Stop the batch still on reserved hot node %1</source>
        <translation>停止仍在已预留热层节点 %1 上运行的批处理作业</translation>
    </message>
    <message>
        <source>Lend hot node %1 to batch</source>
        <translation>将热层节点 %1 借给批处理作业</translation>
    </message>
    <message>
        <source>Hold deferrable batch until %1</source>
        <translation>将可延后的批处理作业推迟到 %1</translation>
    </message>
    <message>
        <source>Lift the hold on deferrable batch</source>
        <translation>解除对可延后批处理作业的推迟</translation>
    </message>
    <message>
        <source>Move workload %1 from node %2 to node %3</source>
        <translation>将工作负载 %1 从节点 %2 迁移到节点 %3</translation>
    </message>
    <message>
        <source>Move workload %1 from node %2 device %3 to node %4 device %5 (share %6)</source>
        <translation>将工作负载 %1 从节点 %2 的设备 %3 迁移到节点 %4 的设备 %5（份额 %6）</translation>
    </message>
    <message>
        <source>Resize workload %1 on node %2 in place: CPU %3 → %4, memory %5 → %6</source>
        <translation>在节点 %2 上原地调整工作负载 %1：CPU %3 → %4，内存 %5 → %6</translation>
    </message>
</context>
<context>
    <name>Reason</name>
    <message>
        <source>pool %1 is forecast to need %2 (p90) around %3, %4 with %5% headroom, above its %6 quota of %7</source>
        <translation>资源池 %1 预计在 %3 前后需要 %2（p90），留 %5% 余量为 %4，超出其 %6 配额 %7</translation>
    </message>
    <message>
        <source>raise it to %1 ahead of the peak</source>
        <translation>在高峰前将其提高到 %1</translation>
    </message>
    <message>
        <source>take %1 from pool %2</source>
        <translation>从资源池 %2 调用 %1</translation>
    </message>
    <message>
        <source>take %1 of capacity no quota holds</source>
        <translation>调用未被任何配额占用的容量 %1</translation>
    </message>
    <message>
        <source>pool %1&apos;s forecast peak (%2 p90) fits its base %3 quota of %4 again</source>
        <translation>资源池 %1 的预测峰值（%2，p90）重新落在其基础 %3 配额 %4 之内</translation>
    </message>
    <message>
        <source>give back the %1 it was raised by</source>
        <translation>归还此前提高的 %1</translation>
    </message>
    <message>
        <source>hot-tier accelerator demand is forecast to reach %1 devices (p90) around %2</source>
        <translation>热层加速器需求预计在 %2 前后达到 %1 个设备（p90）</translation>
    </message>
    <message>
        <source>it is forecast to reach %1 devices (p90) around %2</source>
        <translation>预计在 %2 前后达到 %1 个设备（p90）</translation>
    </message>
    <message>
        <source>power hot node %1 up again and reserve its %2 accelerators for it, rather than stop the batch on lent nodes</source>
        <translation>重新开启热层节点 %1 并为高峰预留其 %2 个加速器，而不是停止借出节点上的批处理作业</translation>
    </message>
    <message>
        <source>reserve %1 more hot nodes (%2 devices) for it</source>
        <translation>为此再预留 %1 个热层节点（%2 个设备）</translation>
    </message>
    <message>
        <source>make room on %1 drained hot nodes</source>
        <translation>在 %1 个已排空的热层节点上腾出空间</translation>
    </message>
    <message>
        <source>move the %1 batch workloads on them to the cold tier</source>
        <translation>将其上的 %1 个批处理作业移到冷层</translation>
    </message>
    <message>
        <source>drain %1 hot nodes (%2 devices) for it, starting no new batch there</source>
        <translation>为此排空 %1 个热层节点（%2 个设备），不再在其上启动新的批处理作业</translation>
    </message>
    <message>
        <source>let the %1 batch workloads running there end on their own until then</source>
        <translation>让其上正在运行的 %1 个批处理作业在此之前自行结束</translation>
    </message>
    <message>
        <source>hot-tier accelerator demand is forecast to stay under %1 devices (p90) for the lookahead</source>
        <translation>热层加速器需求在预测窗口内预计保持在 %1 个设备以下（p90）</translation>
    </message>
    <message>
        <source>lend %1 reserved hot nodes (%2 devices) to batch until the next peak</source>
        <translation>在下一次高峰前将 %1 个预留的热层节点（%2 个设备）借给批处理作业</translation>
    </message>
    <message>
        <source>the grid&apos;s carbon intensity is %1 g/kWh now and forecast to fall to %2 g/kWh at %3</source>
        <translation>电网碳强度当前为 %1 g/kWh，预计在 %3 降至 %2 g/kWh</translation>
    </message>
    <message>
        <source>hold deferrable batch until then (each still starts by its own deadline)</source>
        <translation>将可延后的批处理作业推迟到那时（每个作业仍在其截止时间前启动）</translation>
    </message>
    <message>
        <source>%1 accelerators in service fall %2 short of the hot tier&apos;s forecast %1 peak with headroom and the %1 work waiting for them</source>
        <translation>在役的 %1 加速器比热层的 %1 预测峰值（含余量）加上等待中的 %1 作业少 %2</translation>
    </message>
    <message>
        <source>power node %1 up again for its %2 %3 accelerators</source>
        <translation>为其 %2 个 %3 加速器重新开启节点 %1</translation>
    </message>
    <message>
        <source>the forecast %1 peak (%2 p90, %3 with headroom) exceeds the %4 of nodes in service</source>
        <translation>预测的 %1 峰值（%2，p90；含余量 %3）超出在役节点的 %4</translation>
    </message>
    <message>
        <source>the forecast %1 peak of work that may run only on %2 nodes (%3 p90, %4 with headroom) exceeds the %5 of %2 nodes in service</source>
        <translation>只能运行在%2层节点上的作业的预测 %1 峰值（%3，p90；含余量 %4）超出在役%2层节点的 %5</translation>
    </message>
    <message>
        <source>power node %1 up again</source>
        <translation>重新开启节点 %1</translation>
    </message>
    <message>
        <source>node %1 has run nothing for %2 minutes</source>
        <translation>节点 %1 已有 %2 分钟未运行任何作业</translation>
    </message>
    <message>
        <source>the rest of the cluster holds the forecast CPU peak (%1 p90) with headroom</source>
        <translation>集群其余部分能以余量承载预测的 CPU 峰值（%1，p90）</translation>
    </message>
    <message>
        <source>the rest of the cluster holds the forecast CPU peak (%1 p90) and memory peak (%2 p90) with headroom</source>
        <translation>集群其余部分能以余量承载预测的 CPU 峰值（%1，p90）和内存峰值（%2，p90）</translation>
    </message>
    <message>
        <source>pools %1 are counted at the highest load of the last day: too little history for a forecast</source>
        <translation>资源池 %1 按最近一天的最高负载计算：历史数据不足以预测</translation>
    </message>
    <message>
        <source>no %1 work waits, and the %2 left in service hold the hot tier&apos;s forecast %1 peak (%3 with headroom)</source>
        <translation>没有等待中的 %1 作业，且留在役的 %2 能承载热层的 %1 预测峰值（含余量 %3）</translation>
    </message>
    <message>
        <source>no %1 work waits, and the %2 left in service with no batch on them hold the hot tier&apos;s forecast %1 peak (%3 with headroom)</source>
        <translation>没有等待中的 %1 作业，且留在役、其上无批处理作业的 %2 能承载热层的 %1 预测峰值（含余量 %3）</translation>
    </message>
    <message>
        <source>cordon it and power it down</source>
        <translation>隔离并关闭该节点</translation>
    </message>
    <message>
        <source>GPUs are fragmented: moving %1 batch workloads that hold shares of partly used GPUs onto other partly used GPUs frees %2 whole GPUs</source>
        <translation>GPU 已碎片化：将 %1 个占用部分使用中 GPU 份额的批处理作业迁到其他部分使用中的 GPU 上，可腾出 %2 块整 GPU</translation>
    </message>
    <message>
        <source>waiting work wants %1</source>
        <translation>等待中的作业需要 %1 块</translation>
    </message>
    <message>
        <source>each moved workload restarts</source>
        <translation>每个被迁移的作业都会重启</translation>
    </message>
    <message>
        <source>node %1 runs at or above %2% CPU</source>
        <translation>节点 %1 的 CPU 使用率达到或超过 %2%</translation>
    </message>
    <message>
        <source>nodes %1 run at or above %2% CPU</source>
        <translation>节点 %1 的 CPU 使用率达到或超过 %2%</translation>
    </message>
    <message>
        <source>move %1 batch workloads to the coolest nodes that take them</source>
        <translation>将 %1 个批处理作业迁到能接收它们的最空闲节点</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
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
        <source>%1 mCPU</source>
        <translation>%1 mCPU</translation>
    </message>
    <message>
        <source>%1 MiB</source>
        <translation>%1 MiB</translation>
    </message>
    <message>
        <source>%1 milli-devices</source>
        <translation>%1 毫设备</translation>
    </message>
    <message>
        <source>%1 NPU cores</source>
        <translation>%1 个 NPU 核心</translation>
    </message>
    <message>
        <source>%1 FPGA slots</source>
        <translation>%1 个 FPGA 槽位</translation>
    </message>
    <message>
        <source> or </source>
        <translation>或</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>none: the p90 peak fits the raised %1 quota</source>
        <translation>无：p90 峰值在提高后的 %1 配额之内</translation>
    </message>
    <message>
        <source>the p90 peak still exceeds the raised %1 quota: work will wait</source>
        <translation>p90 峰值仍超出提高后的 %1 配额：作业将等待</translation>
    </message>
    <message>
        <source>none: the p90 peak with headroom fits the base %1 quota</source>
        <translation>无：含余量的 p90 峰值在基础 %1 配额之内</translation>
    </message>
    <message>
        <source>lowers it: the forecast peak finds reserved accelerators</source>
        <translation>降低风险：预测峰值有预留的加速器可用</translation>
    </message>
    <message>
        <source>none: what stays reserved holds the peak with 50% to spare</source>
        <translation>无：保留的预留资源能承载峰值，并有 50% 的富余</translation>
    </message>
    <message>
        <source>what stays reserved holds the forecast peak with headroom</source>
        <translation>保留的预留资源能以余量承载预测峰值</translation>
    </message>
    <message>
        <source>none: only deferrable batch waits, and never past its deadline</source>
        <translation>无：只有可延后的批处理作业等待，且不会超过其截止时间</translation>
    </message>
    <message>
        <source>lowers it: waiting work gets a place</source>
        <translation>降低风险：等待中的作业获得位置</translation>
    </message>
    <message>
        <source>lowers it: more capacity for the peak</source>
        <translation>降低风险：为高峰提供更多容量</translation>
    </message>
    <message>
        <source>none: the rest holds twice the forecast peak</source>
        <translation>无：其余部分能承载两倍的预测峰值</translation>
    </message>
    <message>
        <source>the rest holds the forecast peak with %1% to spare</source>
        <translation>其余部分能承载预测峰值，并有 %1% 的富余</translation>
    </message>
    <message>
        <source>none for services: only batch moves; the moved batch loses the progress it did not checkpoint</source>
        <translation>对服务无影响：只迁移批处理作业；被迁移的批处理作业会丢失未保存检查点的进度</translation>
    </message>
    <message>
        <source>lowers it for what stays on the hot nodes; the moved batch restarts</source>
        <translation>降低留在过热节点上的作业的风险；被迁移的批处理作业会重启</translation>
    </message>
    <message>
        <source>the pool&apos;s %1 quota of %2 still holds it below its forecast need of %3: work will wait</source>
        <translation>该资源池的%1配额 %2 仍低于其预测需求 %3：作业将等待</translation>
    </message>
    <message>
        <source>the peak also needs the %1 raise proposed with it: approve both</source>
        <translation>高峰还需要一同提议的%1配额提升：请一并批准</translation>
    </message>
    <message>
        <source>pool %1 keeps its workloads on the %2 tier; %3 of them still run on other tiers&apos; nodes</source>
        <translation>资源池 %1 的工作负载应位于%2层；其中 %3 个仍运行在其他层级的节点上</translation>
    </message>
    <message>
        <source>move %1 of them to nodes of its tier that take them</source>
        <translation>将其中 %1 个迁移到该层级中能够容纳它们的节点</translation>
    </message>
    <message>
        <source>each moved workload restarts: a service among them is down while it does</source>
        <translation>每个被迁移的工作负载都会重启：其中的服务在重启期间不可用</translation>
    </message>
    <message>
        <source>%1 running workloads of pool %2 used at most %3 and %4 together (each its peak over at least %5 hours), against the %6 and %7 they ask for</source>
        <translation>资源池 %2 的 %1 个运行中工作负载合计最多使用 %3 和 %4（各自至少 %5 小时内的峰值），而它们申请了 %6 和 %7</translation>
    </message>
    <message>
        <source>ask for %1 and %2 instead: each its peak with %3% to spare</source>
        <translation>改为申请 %1 和 %2：各自峰值再留 %3% 余量</translation>
    </message>
    <message>
        <source>%1 of them use more than they ask for</source>
        <translation>其中 %1 个的用量超过其申请量</translation>
    </message>
    <message>
        <source>each is resized where it runs, without a restart; its limits stay</source>
        <translation>每个都在其运行的节点上原地调整，无需重启；其限制保持不变</translation>
    </message>
    <message>
        <source>one that later needs more than its peak with the margin competes for what its node has spare</source>
        <translation>之后需要超过峰值加余量的工作负载将争用其节点的空闲资源</translation>
    </message>
    <message>
        <source>lowers it: what they use is held for them on their nodes</source>
        <translation>降低风险：它们的实际用量在其节点上为其预留</translation>
    </message>
    <message>
        <source>%1 more use more than they ask for, but their nodes or the pool&apos;s quota have no room to raise them now</source>
        <translation>另有 %1 个的用量超过其申请量，但其节点或资源池配额目前没有余量为其上调</translation>
    </message>
    <message>
        <source>%1 running workloads of pool %2 used %3 (each the %4th percentile of its CPU samples) and at most %5 (each its memory&apos;s peak) together over at least %6 hours, against the %7 and %8 they ask for</source>
        <translation>资源池 %2 的 %1 个运行中工作负载在至少 %6 小时内合计使用 %3（各取其 CPU 采样的第 %4 百分位）及至多 %5（各取其内存峰值），而其申请量为 %7 和 %8</translation>
    </message>
    <message>
        <source>ask for %1 and %2 instead: each of those with %3% to spare</source>
        <translation>改为申请 %1 和 %2：各在上述用量之上留 %3% 余量</translation>
    </message>
</context>
<context>
    <name>RemoteText</name>
    <message>
        <source>Cannot reach tidepoold at %1: %2</source>
        <translation>无法连接位于 %1 的 tidepoold：%2</translation>
    </message>
    <message>
        <source>tidepoold at %1 refused the operator token (HTTP 401): check --token-file or TIDEPOOL_TOKEN_FILE</source>
        <translation>位于 %1 的 tidepoold 拒绝了操作员令牌（HTTP 401）：请检查 --token-file 或 TIDEPOOL_TOKEN_FILE</translation>
    </message>
    <message>
        <source>tidepoold at %1 answered HTTP %2: %3</source>
        <translation>位于 %1 的 tidepoold 返回 HTTP %2：%3</translation>
    </message>
    <message>
        <source>tidepoold at %1 sent an answer the console cannot read: %2</source>
        <translation>位于 %1 的 tidepoold 返回了控制台无法读取的应答：%2</translation>
    </message>
    <message>
        <source>%1; retrying in %2 s</source>
        <translation>%1；%2 秒后重试</translation>
    </message>
</context>
<context>
    <name>ViewLabels</name>
    <message>
        <source>placement</source>
        <translation>放置</translation>
    </message>
    <message>
        <source>migration</source>
        <translation>迁移</translation>
    </message>
    <message>
        <source>requeued</source>
        <translation>重新排队</translation>
    </message>
    <message>
        <source>stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>结束</translation>
    </message>
    <message>
        <source>node state</source>
        <translation>节点状态</translation>
    </message>
    <message>
        <source>cordon</source>
        <translation>隔离</translation>
    </message>
    <message>
        <source>decision</source>
        <translation>决定</translation>
    </message>
    <message>
        <source>proposal</source>
        <translation>提案</translation>
    </message>
    <message>
        <source>operator action</source>
        <translation>操作员操作</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
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
        <source>pool %1</source>
        <translation>资源池 %1</translation>
    </message>
    <message>
        <source>%1 tier</source>
        <translation>%1层</translation>
    </message>
    <message>
        <source>%1 devices</source>
        <translation>%1 个设备</translation>
    </message>
    <message>
        <source>%1 of %2 slots</source>
        <translation>%1/%2 个槽位</translation>
    </message>
    <message>
        <source>%1 of %2 cores</source>
        <translation>%1/%2 个核心</translation>
    </message>
    <message>
        <source>restarted</source>
        <translation>重启</translation>
    </message>
    <message>
        <source>drain</source>
        <translation>排空</translation>
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
        <source>Render every tab in English and Chinese, light and dark, to PNG files in DIR once proposals wait, then quit.</source>
        <translation>待有调度建议后，将每个标签页以英文和中文、浅色和深色主题渲染为 DIR 中的 PNG 文件，然后退出。</translation>
    </message>
    <message>
        <source>--%1 must be a port number from 0 to 65535</source>
        <translation>--%1 必须是 0 到 65535 之间的端口号</translation>
    </message>
    <message>
        <source>cannot write the join token file %1: %2</source>
        <translation>无法写入加入令牌文件 %1：%2</translation>
    </message>
    <message>
        <source>tidepool: made a join token for agents in %1 (give it to tidepool-agent --join-token-file)</source>
        <translation>tidepool：已在 %1 生成代理的加入令牌（交给 tidepool-agent --join-token-file 使用）</translation>
    </message>
    <message>
        <source>cannot create the data folder %1</source>
        <translation>无法创建数据文件夹 %1</translation>
    </message>
    <message>
        <source>--db: the folder %1 does not exist</source>
        <translation>--db：文件夹 %1 不存在</translation>
    </message>
    <message>
        <source>no operator token: give --token-file FILE or set TIDEPOOL_TOKEN_FILE</source>
        <translation>没有操作员令牌：请指定 --token-file FILE 或设置 TIDEPOOL_TOKEN_FILE</translation>
    </message>
    <message>
        <source>Attach to the tidepoold the console was last attached to.</source>
        <translation>重新连接到控制台上次连接的 tidepoold。</translation>
    </message>
    <message>
        <source>The operator token for --connect, first line of FILE (default $TIDEPOOL_TOKEN_FILE).</source>
        <translation>--connect 使用的操作员令牌，取 FILE 的第一行（默认 $TIDEPOOL_TOKEN_FILE）。</translation>
    </message>
    <message>
        <source>The port agents join the embedded core on (default 7070).</source>
        <translation>代理加入内嵌核心所用的端口（默认 7070）。</translation>
    </message>
    <message>
        <source>The join token agents authenticate with (default: made in the user&apos;s data folder).</source>
        <translation>代理认证所用的加入令牌（默认在用户数据文件夹中生成）。</translation>
    </message>
    <message>
        <source>Serve the embedded core&apos;s HTTP API on 127.0.0.1:PORT (needs --operator-token-file).</source>
        <translation>在 127.0.0.1:PORT 上提供内嵌核心的 HTTP API（需要 --operator-token-file）。</translation>
    </message>
    <message>
        <source>The operator tokens of the embedded core&apos;s HTTP API.</source>
        <translation>内嵌核心 HTTP API 的操作员令牌。</translation>
    </message>
    <message>
        <source>The embedded core&apos;s settings, a tidepoold JSON config file.</source>
        <translation>内嵌核心的设置，即 tidepoold 的 JSON 配置文件。</translation>
    </message>
    <message>
        <source>--demo, --connect and --reconnect exclude each other</source>
        <translation>--demo、--connect 和 --reconnect 不能同时使用</translation>
    </message>
    <message>
        <source>--reconnect: the console has not been attached to a tidepoold yet; use --connect URL</source>
        <translation>--reconnect：控制台尚未连接过 tidepoold；请使用 --connect URL</translation>
    </message>
    <message>
        <source>--%1 is for the embedded core (tidepool without --demo or --connect)</source>
        <translation>--%1 仅用于内嵌核心（不带 --demo 或 --connect 的 tidepool）</translation>
    </message>
    <message>
        <source>--token-file is for --connect</source>
        <translation>--token-file 仅用于 --connect</translation>
    </message>
    <message>
        <source>--api-port needs --operator-token-file: the API authenticates every caller</source>
        <translation>--api-port 需要 --operator-token-file：API 会认证每个调用者</translation>
    </message>
    <message>
        <source>tidepool: starting the embedded core; `tidepool --reconnect` attaches to %1 again</source>
        <translation>tidepool：正在启动内嵌核心；`tidepool --reconnect` 可重新连接到 %1</translation>
    </message>
    <message>
        <source>the demo is not started here</source>
        <translation>演示模式不在此处启动</translation>
    </message>
    <message>
        <source>With --demo: once proposals wait, write a report of the last simulated 24 hours to FILE (PDF, HTML or CSV by its extension), then quit.</source>
        <translation>配合 --demo 使用：待审批建议出现后，将最近模拟的 24 小时报告写入 FILE（按扩展名输出 PDF、HTML 或 CSV），然后退出。</translation>
    </message>
    <message>
        <source>The language of --report: en or zh_CN.</source>
        <translation>--report 报告的语言：en 或 zh_CN。</translation>
    </message>
    <message>
        <source>--report needs --demo (File → Export report… works in every mode)</source>
        <translation>--report 需要配合 --demo 使用（“文件 → 导出报告…”在所有模式下均可用）</translation>
    </message>
    <message>
        <source>--report and --screenshots are made one at a time</source>
        <translation>--report 与 --screenshots 不能同时使用</translation>
    </message>
    <message>
        <source>--report-language must be en or zh_CN</source>
        <translation>--report-language 必须是 en 或 zh_CN</translation>
    </message>
    <message>
        <source>--report: the file must end in .pdf, .html or .csv</source>
        <translation>--report：文件名必须以 .pdf、.html 或 .csv 结尾</translation>
    </message>
    <message>
        <source>Attach to a running tidepoold through its API (http://HOST:PORT or https://HOST:PORT).</source>
        <translation>通过 API 连接到正在运行的 tidepoold（http://主机:端口 或 https://主机:端口）。</translation>
    </message>
    <message>
        <source>With --connect https://…: the CA (PEM) the daemon&apos;s certificate must chain to (default $TIDEPOOL_CA, else the system&apos;s trust store).</source>
        <translation>与 --connect https://… 一起使用：守护进程证书必须链接到的 CA（PEM）（默认 $TIDEPOOL_CA，否则使用系统信任库）。</translation>
    </message>
    <message>
        <source>--ca is for --connect https://…</source>
        <translation>--ca 仅用于 --connect https://…</translation>
    </message>
    <message>
        <source>The embedded core&apos;s store: a SQLite database, or a postgresql:// URL (default: a SQLite database in the user&apos;s data folder).</source>
        <translation>内嵌核心的存储：SQLite 数据库或 postgresql:// URL（默认是用户数据文件夹中的 SQLite 数据库）。</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::AcceleratorsPage</name>
    <message>
        <source>%1 slots occupied</source>
        <translation>%1 已占用槽位</translation>
    </message>
    <message>
        <source>%1 cores allocated</source>
        <translation>%1 已分配核心</translation>
    </message>
    <message>
        <source>%1 share requested</source>
        <translation>%1 请求份额</translation>
    </message>
    <message>
        <source>Select up to %1 devices to chart them together</source>
        <translation>最多选择 %1 个设备一起绘图</translation>
    </message>
    <message>
        <source>Utilisation, requested share and memory over time</source>
        <translation>利用率、请求份额和内存随时间变化</translation>
    </message>
    <message>
        <source>Who holds each device</source>
        <translation>各设备的占用者</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>% of the device</source>
        <translation>占设备的百分比</translation>
    </message>
    <message>
        <source>%1 utilisation</source>
        <translation>%1 利用率</translation>
    </message>
    <message>
        <source>%1 memory used</source>
        <translation>%1 已用内存</translation>
    </message>
    <message>
        <source>%1 memory allocated</source>
        <translation>%1 已分配内存</translation>
    </message>
    <message>
        <source>No accelerator to chart.</source>
        <translation>没有可绘图的加速器。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>份额</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>free</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>Charted: %1 (the last %2 samples)</source>
        <translation>图中：%1（最近 %2 个采样）</translation>
    </message>
    <message>
        <source>Who held which slot of %1</source>
        <translation>%1 各槽位的占用历史</translation>
    </message>
    <message>
        <source>Its holders hold %1 slots more than it has; those are not drawn.</source>
        <translation>其占用者所占槽位比它实有的多 %1 个；多出的部分未绘出。</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::CheatSheet</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Focus the filter of the table in view</source>
        <translation>聚焦当前表格的筛选栏</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
    <message>
        <source>Does</source>
        <translation>作用</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::CommandPalette</name>
    <message>
        <source>Command palette</source>
        <translation>命令面板</translation>
    </message>
    <message>
        <source>Type a command: a tab, a setting, an action…</source>
        <translation>输入命令：标签页、设置或操作…</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ConsoleShell</name>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>Go to %1</source>
        <translation>转到%1</translation>
    </message>
    <message>
        <source>View</source>
        <translation>视图</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Command palette…</source>
        <translation>命令面板(&amp;C)…</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>Settings › Language</source>
        <translation>设置 › 语言</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>Settings › Theme</source>
        <translation>设置 › 主题</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Help</source>
        <translation>帮助</translation>
    </message>
    <message>
        <source>&amp;Export report…</source>
        <translation>导出报告(&amp;E)…</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::DeviceHistoryModel</name>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Utilisation</source>
        <translation>利用率</translation>
    </message>
    <message>
        <source>Requested share</source>
        <translation>请求份额</translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation>已用内存</translation>
    </message>
    <message>
        <source>Memory allocated</source>
        <translation>已分配内存</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::DevicesModel</name>
    <message>
        <source>%1 · %2 %3</source>
        <translation>%1 · %2 %3</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>%1 (pool %2): %3, %4</source>
        <translation>%1（资源池 %2）：%3，%4</translation>
    </message>
    <message>
        <source>The device&apos;s agent sends no utilisation.</source>
        <translation>该设备的代理未上报利用率。</translation>
    </message>
    <message>
        <source>The share the workloads on it requested (GPU share, NPU cores, FPGA slots)</source>
        <translation>其上工作负载请求的份额（GPU 份额、NPU 核心、FPGA 槽位）</translation>
    </message>
    <message>
        <source>The utilisation its agent measured: what the requested share achieved</source>
        <translation>其代理测得的利用率：请求份额实际达到的水平</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>型号</translation>
    </message>
    <message>
        <source>Tier</source>
        <translation>层级</translation>
    </message>
    <message>
        <source>Requested</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Achieved</source>
        <translation>实际</translation>
    </message>
    <message>
        <source>Memory allocated</source>
        <translation>已分配内存</translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation>已用内存</translation>
    </message>
    <message>
        <source>Held by</source>
        <translation>占用者</translation>
    </message>
    <message>
        <source>, in slots %1</source>
        <translation>，位于槽位 %1</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::EventsModel</name>
    <message>
        <source>approved</source>
        <translation>已批准</translation>
    </message>
    <message>
        <source>rejected</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <source>%1: refused (%2)</source>
        <translation>%1：被拒绝（%2）</translation>
    </message>
    <message>
        <source>cordon lifted</source>
        <translation>解除隔离</translation>
    </message>
    <message>
        <source>cordoned: %1</source>
        <translation>已隔离：%1</translation>
    </message>
    <message>
        <source>%1 → %2</source>
        <translation>%1 → %2</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Subject</source>
        <translation>对象</translation>
    </message>
    <message>
        <source>Change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>By</source>
        <translation>执行者</translation>
    </message>
    <message>
        <source>Detail</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>draining (cordoned: %1)</source>
        <translation>排空中（已隔离：%1）</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::EventsPage</name>
    <message>
        <source>All kinds</source>
        <translation>所有类型</translation>
    </message>
    <message>
        <source>Show only events of one kind</source>
        <translation>只显示一种类型的事件</translation>
    </message>
    <message>
        <source>&amp;Kind:</source>
        <translation>类型(&amp;K)：</translation>
    </message>
    <message>
        <source>%1 of %2 events</source>
        <translation>%1 / %2 个事件</translation>
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
    <name>tidepool::ui::ForecastListModel</name>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>No forecast for this series: the rebalancer forecasts each pool&apos;s CPU and the hot tier&apos;s GPUs, once they have a day of history.</source>
        <translation>此序列没有预测：再平衡器在有一天历史数据后预测每个资源池的 CPU 和热层的 GPU。</translation>
    </message>
    <message>
        <source>Backtest of the %1 model: not run yet.</source>
        <translation>%1 模型的回测：尚未运行。</translation>
    </message>
    <message>
        <source>Backtest of the %1 model failed: %2</source>
        <translation>%1 模型的回测失败：%2</translation>
    </message>
    <message>
        <source>—</source>
        <translation>—</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>Series</source>
        <translation>序列</translation>
    </message>
    <message>
        <source>Resource</source>
        <translation>资源</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Forecast made</source>
        <translation>预测时间</translation>
    </message>
    <message>
        <source>Backtest sMAPE</source>
        <translation>回测 sMAPE</translation>
    </message>
    <message>
        <source>Band coverage</source>
        <translation>区间覆盖率</translation>
    </message>
    <message>
        <source>Backtest of the %1 model on the history shown, %2 h ahead (%3 points): sMAPE %4 %, MASE %5, p10–p90 coverage %6 % (80 % nominal).</source>
        <translation>%1 模型在所示历史上的回测，提前 %2 小时（%3 个点）：sMAPE %4 %，MASE %5，p10–p90 覆盖率 %6 %（名义值 80 %）。</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ForecastPointsModel</name>
    <message>
        <source>highest so far</source>
        <translation>迄今最高</translation>
    </message>
    <message>
        <source>forecast peak (p90)</source>
        <translation>预测峰值（p90）</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Actual</source>
        <translation>实际</translation>
    </message>
    <message>
        <source>Forecast</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>p10</source>
        <translation>p10</translation>
    </message>
    <message>
        <source>p90</source>
        <translation>p90</translation>
    </message>
    <message>
        <source>Peak</source>
        <translation>峰值</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ForecastsPage</name>
    <message>
        <source>cores</source>
        <translation>核</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>devices</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>The pool or tier and the resource to show</source>
        <translation>要显示的资源池或层级及资源</translation>
    </message>
    <message>
        <source>Actual</source>
        <translation>实际</translation>
    </message>
    <message>
        <source>Forecast</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>p10–p90 band</source>
        <translation>p10–p90 区间</translation>
    </message>
    <message>
        <source>Peaks</source>
        <translation>峰值</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>&amp;Series:</source>
        <translation>序列(&amp;S)：</translation>
    </message>
    <message>
        <source>%1: history and forecast</source>
        <translation>%1：历史与预测</translation>
    </message>
    <message>
        <source>No history yet: series appear once the core has recorded some.</source>
        <translation>尚无历史：核心记录数据后序列才会出现。</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::Languages</name>
    <message>
        <source>System language</source>
        <translation>跟随系统语言</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::LogsDialog</name>
    <message>
        <source>&amp;Refresh</source>
        <translation>刷新(&amp;R)</translation>
    </message>
    <message>
        <source>Output of %1 (workload %2)</source>
        <translation>%1 的输出（工作负载 %2）</translation>
    </message>
    <message>
        <source>Standard output</source>
        <translation>标准输出</translation>
    </message>
    <message>
        <source>Standard error</source>
        <translation>标准错误</translation>
    </message>
    <message>
        <source>No core is connected.</source>
        <translation>没有连接调度核心。</translation>
    </message>
    <message>
        <source>Asking the agent of its node…</source>
        <translation>正在向其节点的代理请求…</translation>
    </message>
    <message>
        <source>standard error</source>
        <translation>标准错误</translation>
    </message>
    <message>
        <source>standard output</source>
        <translation>标准输出</translation>
    </message>
    <message>
        <source>No output to show: %1</source>
        <translation>没有可显示的输出：%1</translation>
    </message>
    <message>
        <source>Node %1 holds no %2 of it yet.</source>
        <translation>节点 %1 尚未保存它的%2。</translation>
    </message>
    <message>
        <source>The end of what node %1 keeps of its %2 (%3 of it in all).</source>
        <translation>节点 %1 保存的其%2的末尾部分（共 %3）。</translation>
    </message>
    <message>
        <source>All of what node %1 keeps of its %2 (%3).</source>
        <translation>节点 %1 保存的其全部%2（%3）。</translation>
    </message>
    <message>
        <source>Show &amp;output…</source>
        <translation>显示输出(&amp;O)…</translation>
    </message>
    <message>
        <source>Your token&apos;s role (%1) may not read workloads&apos; output: that needs the %2 role.</source>
        <translation>您的令牌角色（%1）不能读取工作负载的输出：这需要 %2 角色。</translation>
    </message>
    <message>
        <source>&amp;Follow</source>
        <translation>跟随(&amp;F)</translation>
    </message>
    <message>
        <source>Following: asking again every %1 s.</source>
        <translation>跟随中：每 %1 秒再问一次。</translation>
    </message>
    <message>
        <source>Its agent is from before following output, so it cannot be followed: Refresh to read the end again.</source>
        <translation>其代理早于输出跟随功能，无法跟随：点“刷新”可再次读取末尾。</translation>
    </message>
    <message>
        <source>Following: %1; asking again every %2 s.</source>
        <translation>跟随中：%1；每 %2 秒再问一次。</translation>
    </message>
    <message>
        <source>Node %1&apos;s agent is from before following output, so it cannot be followed.</source>
        <translation>节点 %1 的代理早于输出跟随功能，无法跟随。</translation>
    </message>
    <message>
        <source>It was launched again (launch %1, on node %2): its output from the beginning.</source>
        <translation>它已重新启动（第 %1 次启动，在节点 %2 上）：从头显示其输出。</translation>
    </message>
    <message>
        <source>%1 were rotated out on node %2 before they could be read.</source>
        <translation>节点 %2 上有 %1 在读取之前已被轮转移除。</translation>
    </message>
    <message>
        <source>Node %1 keeps less of it than was read (its record began again): from the beginning of what it keeps.</source>
        <translation>节点 %1 保留的比已读取的少（其记录已重新开始）：从其保留内容的开头显示。</translation>
    </message>
    <message>
        <source>It has ended (%1): that is all of its %2.</source>
        <translation>它已结束（%1）：这就是它的全部%2。</translation>
    </message>
    <message>
        <source>Following its %1 on node %2: %3 read since.</source>
        <translation>正在跟随节点 %2 上它的%1：此后已读取 %3。</translation>
    </message>
    <message>
        <source>&amp;Previous launch</source>
        <translation>上一次启动(&amp;P)</translation>
    </message>
    <message>
        <source>The output of its launch before the current one (restarted, moved, preempted, or placed again after its node was lost), from the node it ran on</source>
        <translation>当前这次启动之前那一次启动的输出（因重启、迁移、抢占或其节点失联后重新放置而结束），取自它当时运行的节点</translation>
    </message>
    <message>
        <source>The end of what node %1 keeps of the %2 of its previous launch (launch %3; %4 of it in all).</source>
        <translation>节点 %1 保留的其上一次启动（第 %3 次启动）%2 的末尾部分（共 %4）。</translation>
    </message>
    <message>
        <source>All of what node %1 keeps of the %2 of its previous launch (launch %3; %4).</source>
        <translation>节点 %1 保留的其上一次启动（第 %3 次启动）%2 的全部内容（%4）。</translation>
    </message>
    <message>
        <source>Show what it writes as it writes it, until it has ended</source>
        <translation>随写随显示其输出，直到它结束</translation>
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
    <message>
        <source>Tiers</source>
        <translation>层级看板</translation>
    </message>
    <message>
        <source>Accelerators</source>
        <translation>加速器</translation>
    </message>
    <message>
        <source>Forecasts</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>事件</translation>
    </message>
    <message>
        <source>embedded core</source>
        <translation>内嵌核心</translation>
    </message>
    <message>
        <source>tidepoold at %1</source>
        <translation>位于 %1 的 tidepoold</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::NodeActions</name>
    <message>
        <source>Your token&apos;s role (%1) may not take nodes out of service or back: that needs the %2 role.</source>
        <translation>您的令牌角色（%1）不能让节点停止或恢复服务：这需要 %2 角色。</translation>
    </message>
    <message>
        <source>No core is connected.</source>
        <translation>没有连接调度核心。</translation>
    </message>
    <message>
        <source>Draining node %1…</source>
        <translation>正在排空节点 %1…</translation>
    </message>
    <message>
        <source>Asking the core about node %1…</source>
        <translation>正在向核心询问节点 %1…</translation>
    </message>
    <message>
        <source>Node %1 was not changed: %2</source>
        <translation>节点 %1 未更改：%2</translation>
    </message>
    <message>
        <source>Node %1 is cordoned (%2): no new work lands there; what runs there stays.</source>
        <translation>节点 %1 已隔离（%2）：不会再有新工作落到这里；正在运行的保留。</translation>
    </message>
    <message>
        <source>Node %1 was not cordoned.</source>
        <translation>节点 %1 未被隔离。</translation>
    </message>
    <message>
        <source>Node %1 is uncordoned (it was: %2): new work may land there again.</source>
        <translation>节点 %1 已解除隔离（原为：%2）：新工作可再次落到这里。</translation>
    </message>
    <message numerus="yes">
        <source>Node %1 is cordoned (%2); %n workload(s) moved off it.</source>
        <translation>
            <numerusform>节点 %1 已隔离（%2）；%n 个工作负载已移出。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n stay, for no other node takes them:</source>
        <translation>
            <numerusform>%n 个留下，因为没有其他节点接收它们：</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Cordon…</source>
        <translation>隔离(&amp;C)…</translation>
    </message>
    <message>
        <source>&amp;Uncordon</source>
        <translation>解除隔离(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Drain…</source>
        <translation>排空(&amp;D)…</translation>
    </message>
    <message>
        <source>No new work lands on it; what runs there stays.</source>
        <translation>不会再有新工作落到它上面；正在运行的保留。</translation>
    </message>
    <message>
        <source>New work may land on it again.</source>
        <translation>新工作可再次落到它上面。</translation>
    </message>
    <message>
        <source>It is not cordoned.</source>
        <translation>它未被隔离。</translation>
    </message>
    <message>
        <source>Cordons it and moves what runs there to other nodes: each is stopped and launched again there.</source>
        <translation>隔离它并把其上运行的工作移到其他节点：每个都会被停止并在那里重新启动。</translation>
    </message>
    <message>
        <source>Drain node %1</source>
        <translation>排空节点 %1</translation>
    </message>
    <message>
        <source>Cordon node %1</source>
        <translation>隔离节点 %1</translation>
    </message>
    <message>
        <source>Each workload on node %1 is stopped and launched again on another node that takes it. Why (optional, kept with the cordon and in the audit log)?</source>
        <translation>节点 %1 上的每个工作负载都会被停止，并在接收它的另一节点上重新启动。原因（可选，随隔离记录并写入审计日志）？</translation>
    </message>
    <message>
        <source>Why (optional, kept with the cordon and in the audit log)?</source>
        <translation>原因（可选，随隔离记录并写入审计日志）？</translation>
    </message>
    <message numerus="yes">
        <source>Node %1 is cordoned (%2); %n workload(s) moved off it now.</source>
        <translation>
            <numerusform>节点 %1 已隔离（%2）；现已迁出 %n 个工作负载。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n more follow, each as one moved before runs on its new node.</source>
        <translation>
            <numerusform>其余 %n 个将依次迁出：每当先迁出的一个在新节点上运行后，下一个再迁出。</numerusform>
        </translation>
    </message>
    <message>
        <source>Nothing runs there now.</source>
        <translation>该节点上已无工作负载运行。</translation>
    </message>
    <message>
        <source>At most how many of its workloads may be moving at once? The others run where they are until their turn. 0 moves them all at once.</source>
        <translation>同时最多迁移其中多少个工作负载？其余的在原处继续运行，直到轮到它们。0 表示全部同时迁移。</translation>
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
    <message numerus="yes">
        <source>%1 — draining: %2 moving (at most %3), %n moved</source>
        <translation>
            <numerusform>%1 — 排空中：%2 个迁移中（最多 %3 个），已迁出 %n 个</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 — draining: %2 moving (as pools&apos; disruption budgets allow), %n moved</source>
        <translation>
            <numerusform>%1 — 排空中：%2 个迁移中（按资源池的中断预算），已迁出 %n 个</numerusform>
        </translation>
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
    <message>
        <source>Alerts</source>
        <translation>告警</translation>
    </message>
    <message>
        <source>No alerts</source>
        <translation>无告警</translation>
    </message>
    <message>
        <source>Node %1 is lost: its agent has not been heard from, and its workloads are being placed again.</source>
        <translation>节点 %1 已失联：其代理长时间没有消息，其工作负载正在重新放置。</translation>
    </message>
    <message>
        <source>Node %1 is late: no heartbeat for a while; it takes no new work.</source>
        <translation>节点 %1 心跳延迟：一段时间没有心跳，不再接收新工作。</translation>
    </message>
    <message>
        <source>The store cannot be written (%1): changes are refused until it can.</source>
        <translation>存储无法写入（%1）：在恢复之前拒绝所有更改。</translation>
    </message>
    <message>
        <source>Disk low: %1 free of %2 where the store lives (%3).</source>
        <translation>磁盘空间不足：存储所在位置（%3）共 %2，仅剩 %1 可用。</translation>
    </message>
    <message>
        <source>The free space of %1 cannot be read: %2.</source>
        <translation>无法读取 %1 的可用空间：%2。</translation>
    </message>
    <message>
        <source>Certificate %1 expires on %2.</source>
        <translation>证书 %1 将于 %2 过期。</translation>
    </message>
    <message>
        <source>Certificate %1 expired on %2: TLS peers refuse it.</source>
        <translation>证书 %1 已于 %2 过期：TLS 对端会拒绝它。</translation>
    </message>
    <message>
        <source>Certificate %1 cannot be read: %2.</source>
        <translation>无法读取证书 %1：%2。</translation>
    </message>
    <message>
        <source>%1: %2 %3</source>
        <translation>%1：%2 %3</translation>
    </message>
    <message numerus="yes">
        <source>… and %n more.</source>
        <translation>
            <numerusform>……另有 %n 条。</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>tidepool::ui::PoolDialog</name>
    <message>
        <source>unlimited</source>
        <translation>不限</translation>
    </message>
    <message>
        <source> MB/s</source>
        <translation> MB/s</translation>
    </message>
    <message>
        <source> Mbit/s</source>
        <translation> Mbit/s</translation>
    </message>
    <message>
        <source>Edit pool %1</source>
        <translation>编辑资源池 %1</translation>
    </message>
    <message>
        <source>New pool</source>
        <translation>新建资源池</translation>
    </message>
    <message>
        <source>letters, digits, &apos;.&apos;, &apos;_&apos; and &apos;-&apos;</source>
        <translation>字母、数字、&apos;.&apos;、&apos;_&apos; 和 &apos;-&apos;</translation>
    </message>
    <message>
        <source>none: a cost row of its own in reports</source>
        <translation>无：在报告中单独列为一行成本</translation>
    </message>
    <message>
        <source>any tier</source>
        <translation>任意层级</translation>
    </message>
    <message>
        <source> cores</source>
        <translation> 核</translation>
    </message>
    <message>
        <source> GiB</source>
        <translation> GiB</translation>
    </message>
    <message>
        <source> milli-GPUs</source>
        <translation> 毫 GPU</translation>
    </message>
    <message>
        <source> NPU cores</source>
        <translation> 个 NPU 核心</translation>
    </message>
    <message>
        <source> FPGA slots</source>
        <translation> 个 FPGA 时间片</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Business line</source>
        <translation>业务线</translation>
    </message>
    <message>
        <source>Tier</source>
        <translation>层级</translation>
    </message>
    <message>
        <source>CPU quota</source>
        <translation>CPU 配额</translation>
    </message>
    <message>
        <source>Memory quota</source>
        <translation>内存配额</translation>
    </message>
    <message>
        <source>Memory bandwidth quota</source>
        <translation>内存带宽配额</translation>
    </message>
    <message>
        <source>Network quota</source>
        <translation>网络配额</translation>
    </message>
    <message>
        <source>GPU quota (1000 a GPU; 0: none)</source>
        <translation>GPU 配额（每块 GPU 1000；0：不可用）</translation>
    </message>
    <message>
        <source>NPU quota (0: none)</source>
        <translation>NPU 配额（0：不可用）</translation>
    </message>
    <message>
        <source>FPGA quota (0: none)</source>
        <translation>FPGA 配额（0：不可用）</translation>
    </message>
    <message>
        <source>IO weight (100: the default)</source>
        <translation>IO 权重（100：默认值）</translation>
    </message>
    <message>
        <source>no budget</source>
        <translation>无预算</translation>
    </message>
    <message>
        <source>How many of the pool&apos;s workloads drains and approved migrations may have moved and not running again at once; 0: none moves until a drain&apos;s deadline.</source>
        <translation>排空和已批准的迁移同时可移动、尚未重新运行的本资源池工作负载数量；0：在排空截止时间前一个也不移动。</translation>
    </message>
    <message>
        <source>workloads</source>
        <translation>个工作负载</translation>
    </message>
    <message>
        <source>% of its workloads</source>
        <translation>% 的工作负载</translation>
    </message>
    <message>
        <source>A percentage follows the pool&apos;s size, rounded up: 10% of 4 workloads lets 1 move.</source>
        <translation>百分比随资源池的规模变化，向上取整：4 个工作负载的 10% 允许移动 1 个。</translation>
    </message>
    <message>
        <source>Disruption budget (moving at once)</source>
        <translation>中断预算（同时移动）</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::PoolsModel</name>
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
        <source>%1 devices</source>
        <translation>%1 个设备</translation>
    </message>
    <message>
        <source>%1 Gb/s</source>
        <translation>%1 Gb/s</translation>
    </message>
    <message>
        <source>%1 GB/s</source>
        <translation>%1 GB/s</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 / %2</translation>
    </message>
    <message>
        <source>Workloads of this pool waiting for a place</source>
        <translation>此资源池中等待调度的工作负载</translation>
    </message>
    <message>
        <source>Waiting for a place</source>
        <translation>等待调度</translation>
    </message>
    <message>
        <source>CPU requested against the pool&apos;s quota; on a node row, against the node&apos;s CPU.</source>
        <translation>已请求 CPU 占资源池配额的比例；节点行为占该节点 CPU 的比例。</translation>
    </message>
    <message>
        <source>Business line / pool / node / workload</source>
        <translation>业务线 / 资源池 / 节点 / 工作负载</translation>
    </message>
    <message>
        <source>CPU requested</source>
        <translation>已请求 CPU</translation>
    </message>
    <message>
        <source>Memory requested</source>
        <translation>已请求内存</translation>
    </message>
    <message>
        <source>Memory bandwidth requested</source>
        <translation>已请求内存带宽</translation>
    </message>
    <message>
        <source>Network requested</source>
        <translation>已请求网络带宽</translation>
    </message>
    <message>
        <source>Accelerators requested</source>
        <translation>已请求加速器</translation>
    </message>
    <message>
        <source>Accelerators used</source>
        <translation>已使用加速器</translation>
    </message>
    <message>
        <source>%1 %2 of %3 share units</source>
        <translation>%1 已用 %2 / 共 %3 份额单位</translation>
    </message>
    <message>
        <source>Accelerator quota: %1</source>
        <translation>加速器配额：%1</translation>
    </message>
    <message>
        <source>%1 Mb/s</source>
        <translation>%1 Mb/s</translation>
    </message>
    <message>
        <source>Requested against the pool&apos;s quota; agents do not measure memory bandwidth.</source>
        <translation>已请求量与池配额之比；代理不测量内存带宽。</translation>
    </message>
    <message>
        <source>Requested against the pool&apos;s quota.</source>
        <translation>已请求量与池配额之比。</translation>
    </message>
    <message>
        <source>As measured: what each pool&apos;s traffic class sent, on the nodes whose agent shapes its link, split among its workloads there by their requests; — where none does. The bar: against the quota (a pool), the pool&apos;s guarantee on the node (a node) or the request (a workload).</source>
        <translation>实测值：在代理对链路做整形的节点上，每个池的流量类实际发送的带宽，按请求量分摊给该节点上的工作负载；没有节点整形时显示 —。条形图：对照配额（池）、池在该节点上的保证带宽（节点）或请求量（工作负载）。</translation>
    </message>
    <message>
        <source>Network used</source>
        <translation>已用网络带宽</translation>
    </message>
    <message>
        <source>No disruption budget: drains and approved migrations move any number of its workloads at once.</source>
        <translation>无中断预算：排空和已批准的迁移可同时移动任意数量的工作负载。</translation>
    </message>
    <message>
        <source>Disruption budget 0: drains and approved migrations move none of its workloads (a drain&apos;s deadline still does).</source>
        <translation>中断预算为 0：排空和已批准的迁移不移动其任何工作负载（排空截止时间到时仍会移动）。</translation>
    </message>
    <message numerus="yes">
        <source>Disruption budget: at most %n of its workloads moved by drains and approved migrations at once, until each runs again (%1 moving now).</source>
        <translation>
            <numerusform>中断预算：排空和已批准的迁移同时最多移动 %n 个工作负载，直到每个重新运行（当前 %1 个正在移动）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Disruption budget: %1% of its workloads, rounded up; at most %n of them moved by drains and approved migrations at once now, until each runs again (%2 moving now).</source>
        <translation>
            <numerusform>中断预算：其工作负载的 %1%，向上取整；排空和已批准的迁移当前同时最多移动其中 %n 个，直到每个重新运行（当前 %2 个正在移动）。</numerusform>
        </translation>
    </message>
    <message>
        <source>As measured by the nodes&apos; agents: a workload&apos;s own use where its agent measures it, else its pool&apos;s use on its node (or the node&apos;s) split among the workloads there by their requests. The bar: against the quota (a pool), the node&apos;s capacity (a node) or the request (a workload).</source>
        <translation>由各节点的代理测得：代理测量工作负载自身用量时即为其自身用量，否则为其资源池在该节点上的用量（或节点的用量）按请求量分摊到该处各工作负载。条形：对照配额（资源池）、节点容量（节点）或请求量（工作负载）。</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::PoolsPage</name>
    <message>
        <source>Drag a workload onto another pool (the core picks the node) or onto a node of a pool. The core checks the target pool quota and the scheduling rules, then moves it or says why not.</source>
        <translation>将工作负载拖到另一个资源池（由调度核心选择节点）或某个资源池的节点上。调度核心检查目标资源池的配额和调度规则，然后执行迁移或说明原因。</translation>
    </message>
    <message>
        <source>Not moved: no core is attached.</source>
        <translation>未迁移：未连接调度核心。</translation>
    </message>
    <message>
        <source>Moving workload %1 into pool %2…</source>
        <translation>正在将工作负载 %1 迁移到资源池 %2…</translation>
    </message>
    <message>
        <source>Moving workload %1 into pool %2, onto node %3…</source>
        <translation>正在将工作负载 %1 迁移到资源池 %2 的节点 %3…</translation>
    </message>
    <message>
        <source>&amp;New pool…</source>
        <translation>新建资源池(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Edit pool…</source>
        <translation>编辑资源池(&amp;E)…</translation>
    </message>
    <message>
        <source>&amp;Delete pool…</source>
        <translation>删除资源池(&amp;D)…</translation>
    </message>
    <message>
        <source>Delete pool %1</source>
        <translation>删除资源池 %1</translation>
    </message>
    <message>
        <source>Delete pool %1? The core refuses while any of its workloads has not ended; its history stays, and reports over the days it lived still count it.</source>
        <translation>删除资源池 %1？只要其中还有未结束的工作负载，核心就会拒绝；其历史记录会保留，覆盖其存在期间的报告仍会计入它。</translation>
    </message>
    <message>
        <source>Pool %1 unchanged: no core is attached.</source>
        <translation>资源池 %1 未更改：未连接核心。</translation>
    </message>
    <message>
        <source>Creating pool %1…</source>
        <translation>正在创建资源池 %1…</translation>
    </message>
    <message>
        <source>Changing pool %1…</source>
        <translation>正在更改资源池 %1…</translation>
    </message>
    <message>
        <source>Deleting pool %1…</source>
        <translation>正在删除资源池 %1…</translation>
    </message>
    <message>
        <source>Pool %1 created.</source>
        <translation>已创建资源池 %1。</translation>
    </message>
    <message>
        <source>Pool %1 not created: %2</source>
        <translation>未创建资源池 %1：%2</translation>
    </message>
    <message>
        <source>Pool %1 changed.</source>
        <translation>已更改资源池 %1。</translation>
    </message>
    <message>
        <source>Pool %1 not changed: %2</source>
        <translation>未更改资源池 %1：%2</translation>
    </message>
    <message>
        <source>Pool %1 deleted.</source>
        <translation>已删除资源池 %1。</translation>
    </message>
    <message>
        <source>Pool %1 not deleted: %2</source>
        <translation>未删除资源池 %1：%2</translation>
    </message>
    <message>
        <source>Your token&apos;s role (%1) may not %2: that needs the %3 role.</source>
        <translation>您的令牌角色（%1）不能%2：这需要 %3 角色。</translation>
    </message>
    <message>
        <source>create pools</source>
        <translation>创建资源池</translation>
    </message>
    <message>
        <source>change pools</source>
        <translation>修改资源池</translation>
    </message>
    <message>
        <source>delete pools</source>
        <translation>删除资源池</translation>
    </message>
    <message>
        <source>move workloads</source>
        <translation>迁移工作负载</translation>
    </message>
    <message>
        <source>Select a pool first.</source>
        <translation>请先选择一个资源池。</translation>
    </message>
    <message>
        <source>The default pool holds the workloads that name no pool: it is never deleted.</source>
        <translation>默认资源池承载未指定资源池的工作负载：它永远不会被删除。</translation>
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
    <message>
        <source>Your token&apos;s role (%1) may look but not decide: deciding proposals needs an operator or an admin token.</source>
        <translation>您的令牌角色（%1）只能查看不能决定：决定提案需要操作员或管理员令牌。</translation>
    </message>
    <message>
        <source>Every open proposal and the newest %1 decided or expired ones. Older ones: tidepoolctl proposals --before ID, and the audit log.</source>
        <translation>所有未决的提案，以及最新的 %1 条已决定或已过期的提案。更早的提案：tidepoolctl proposals --before ID，以及审计日志。</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ReportDialog</name>
    <message>
        <source>Export report</source>
        <translation>导出报告</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Business line</source>
        <translation>业务线</translation>
    </message>
    <message>
        <source>Pool</source>
        <translation>资源池</translation>
    </message>
    <message>
        <source>Tier</source>
        <translation>层级</translation>
    </message>
    <message>
        <source>PDF</source>
        <translation>PDF</translation>
    </message>
    <message>
        <source>HTML</source>
        <translation>HTML</translation>
    </message>
    <message>
        <source>CSV (spreadsheets)</source>
        <translation>CSV（电子表格）</translation>
    </message>
    <message>
        <source>English</source>
        <translation>英语</translation>
    </message>
    <message>
        <source>Simplified Chinese</source>
        <translation>简体中文</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>From (UTC):</source>
        <translation>开始（UTC）：</translation>
    </message>
    <message>
        <source>To (UTC):</source>
        <translation>结束（UTC）：</translation>
    </message>
    <message>
        <source>Scope:</source>
        <translation>范围：</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Format:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <source>File:</source>
        <translation>文件：</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>导出(&amp;E)</translation>
    </message>
    <message>
        <source>Hot</source>
        <translation>热层</translation>
    </message>
    <message>
        <source>Warm</source>
        <translation>温层</translation>
    </message>
    <message>
        <source>Cold</source>
        <translation>冷层</translation>
    </message>
    <message>
        <source>PDF documents (*.pdf)</source>
        <translation>PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>Web pages (*.html)</source>
        <translation>网页 (*.html)</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV 文件 (*.csv)</translation>
    </message>
    <message>
        <source>Choose the file to write the report to.</source>
        <translation>请选择报告要写入的文件。</translation>
    </message>
    <message>
        <source>Choose the %1 to report on.</source>
        <translation>请选择要生成报告的%1。</translation>
    </message>
    <message>
        <source>The period is empty: “From” (%1) must be before “To” (%2).</source>
        <translation>时段为空：“开始”（%1）必须早于“结束”（%2）。</translation>
    </message>
    <message>
        <source>The report cannot be made: %1</source>
        <translation>无法生成报告：%1</translation>
    </message>
    <message>
        <source>No core is running: the report cannot be made.</source>
        <translation>没有正在运行的核心，无法生成报告。</translation>
    </message>
    <message>
        <source>Preparing the report…</source>
        <translation>正在准备报告…</translation>
    </message>
    <message>
        <source>The report could not be made: %1</source>
        <translation>报告生成失败：%1</translation>
    </message>
    <message>
        <source>The report could not be saved: %1</source>
        <translation>报告保存失败：%1</translation>
    </message>
    <message>
        <source>Saved to %1</source>
        <translation>已保存到 %1</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::ResizeDialog</name>
    <message>
        <source> cores</source>
        <translation> 核</translation>
    </message>
    <message>
        <source> MiB</source>
        <translation> MiB</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Resize %1</source>
        <translation>调整 %1 的规格</translation>
    </message>
    <message>
        <source>CPU request:</source>
        <translation>CPU 申请量：</translation>
    </message>
    <message>
        <source>Memory request:</source>
        <translation>内存申请量：</translation>
    </message>
    <message>
        <source>CPU limit:</source>
        <translation>CPU 限制：</translation>
    </message>
    <message>
        <source>Memory limit:</source>
        <translation>内存限制：</translation>
    </message>
    <message>
        <source>It waits for a place: it is placed at its new size.</source>
        <translation>它正在等待调度：将按新规格放置。</translation>
    </message>
    <message>
        <source>It runs on %1: it is resized there, without a restart, if the node has room and its pool the quota.</source>
        <translation>它运行在 %1 上：若节点有余量且其资源池配额允许，将在原地调整，无需重启。</translation>
    </message>
    <message>
        <source>It uses %1 and %2 now, as its node measures it.</source>
        <translation>据其节点测量，它当前使用 %1 和 %2。</translation>
    </message>
    <message>
        <source>No core is connected.</source>
        <translation>未连接到任何核心。</translation>
    </message>
    <message>
        <source>Resizing…</source>
        <translation>正在调整…</translation>
    </message>
    <message>
        <source>Not resized: %1</source>
        <translation>未调整：%1</translation>
    </message>
    <message>
        <source>&amp;Resize…</source>
        <translation>调整规格(&amp;R)…</translation>
    </message>
    <message>
        <source>Your token&apos;s role (%1) may not resize workloads: that needs the %2 role.</source>
        <translation>你的令牌角色（%1）不能调整工作负载的规格：需要 %2 角色。</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::SlotTimelineModel</name>
    <message>
        <source>before %1</source>
        <translation>%1 之前</translation>
    </message>
    <message>
        <source>now</source>
        <translation>现在</translation>
    </message>
    <message>
        <source>%1 – %2</source>
        <translation>%1 – %2</translation>
    </message>
    <message>
        <source>%1
Pool: %2
Slots held: %3
%4</source>
        <translation>%1
资源池：%2
占用槽位：%3
%4</translation>
    </message>
    <message>
        <source>Slot</source>
        <translation>槽位</translation>
    </message>
    <message>
        <source>Workload</source>
        <translation>工作负载</translation>
    </message>
    <message>
        <source>Pool</source>
        <translation>资源池</translation>
    </message>
    <message>
        <source>Slots</source>
        <translation>槽位数</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>End</source>
        <translation>结束</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::SlotTimelineView</name>
    <message>
        <source>Slot %1</source>
        <translation>槽位 %1</translation>
    </message>
    <message>
        <source>No slot history for this FPGA yet.</source>
        <translation>此 FPGA 尚无槽位历史。</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::TablePage</name>
    <message>
        <source>Columns</source>
        <translation>列</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::TiersModel</name>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message>
        <source>%1 nodes, %2 workloads</source>
        <translation>%1 个节点，%2 个工作负载</translation>
    </message>
    <message>
        <source>Waiting for a place</source>
        <translation>等待调度</translation>
    </message>
    <message>
        <source>%1 workloads; drop one on a node to place it there</source>
        <translation>%1 个工作负载；拖到某个节点上即可放置到该节点</translation>
    </message>
    <message>
        <source>%1 · %2, %3 allocated · %4 workloads</source>
        <translation>%1 · %2，已分配 %3 · %4 个工作负载</translation>
    </message>
    <message>
        <source>%1 × %2</source>
        <translation>%1 × %2</translation>
    </message>
    <message>
        <source>Workloads whose latency class belongs on this tier and that wait for a place</source>
        <translation>延迟等级属于此层级、正在等待调度的工作负载</translation>
    </message>
    <message>
        <source>Node %1: %2</source>
        <translation>节点 %1：%2</translation>
    </message>
    <message>
        <source>Cordoned: %1</source>
        <translation>已隔离：%1</translation>
    </message>
    <message>
        <source>%1 · %2 · %3</source>
        <translation>%1 · %2 · %3</translation>
    </message>
    <message>
        <source>%1 (workload %2), pool %3, %4</source>
        <translation>%1（工作负载 %2），资源池 %3，%4</translation>
    </message>
    <message>
        <source>Waiting for a place on the %1 tier</source>
        <translation>正在%1层等待调度</translation>
    </message>
    <message>
        <source>On node %1 (%2 tier)</source>
        <translation>位于节点 %1（%2层）</translation>
    </message>
    <message>
        <source>Requests: %1</source>
        <translation>请求：%1</translation>
    </message>
    <message>
        <source>Core: %1</source>
        <translation>调度核心：%1</translation>
    </message>
    <message>
        <source>Moving…</source>
        <translation>正在迁移…</translation>
    </message>
    <message numerus="yes">
        <source>restarted %n time(s)</source>
        <translation>
            <numerusform>已重启 %n 次</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Restarted %n time(s) by its restart policy</source>
        <translation>
            <numerusform>已按其重启策略重启 %n 次</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <source>%1 h</source>
        <translation>%1 小时</translation>
    </message>
    <message>
        <source>%1 d</source>
        <translation>%1 天</translation>
    </message>
    <message>
        <source>CPU %1</source>
        <translation>CPU %1</translation>
    </message>
    <message>
        <source>memory %1</source>
        <translation>内存 %1</translation>
    </message>
    <message>
        <source>Its own limits: %1</source>
        <translation>自身限额：%1</translation>
    </message>
    <message>
        <source>when it fails</source>
        <translation>失败时</translation>
    </message>
    <message numerus="yes">
        <source>Restarted %1, at most %n time(s)</source>
        <translation>
            <numerusform>%1重启，最多 %n 次</numerusform>
        </translation>
    </message>
    <message>
        <source>Restarted %1</source>
        <translation>%1重启</translation>
    </message>
    <message>
        <source>Stopped after running %1</source>
        <translation>运行 %1 后停止</translation>
    </message>
    <message>
        <source>whenever it ends</source>
        <translation>每次结束后</translation>
    </message>
</context>
<context>
    <name>tidepool::ui::TiersPage</name>
    <message>
        <source>Drag a workload onto another tier (the core picks the node) or onto a node. The core checks the move against the scheduler&apos;s rules and either makes it or says why not.</source>
        <translation>将工作负载拖到另一个层级（由调度核心选择节点）或某个节点上。调度核心按调度规则检查此次迁移，要么执行，要么说明原因。</translation>
    </message>
    <message>
        <source>%1 tier</source>
        <translation>%1层</translation>
    </message>
    <message>
        <source>Not moved: no core is attached.</source>
        <translation>未迁移：未连接调度核心。</translation>
    </message>
    <message>
        <source>Moved to %1</source>
        <translation>已迁移到 %1</translation>
    </message>
    <message>
        <source>Your token&apos;s role (%1) may look but not move workloads: moving them needs the %2 role.</source>
        <translation>您的令牌角色（%1）只能查看、不能迁移工作负载：迁移需要 %2 角色。</translation>
    </message>
</context>
</TS>
