import re,sys
def q(x,p):
    x=sorted(x); return x[int(p*(len(x)-1))] if x else float('nan')
for path in sys.argv[1:]:
    dma=[];tl=[]
    for line in open(path):
        kv={k:float(v) for k,v in re.findall(r'(\w+)=([0-9.]+)',line)}
        if line.startswith('VJDMA'): dma.append(kv)
        elif line.startswith('VJTL'): tl.append(kv)
    dur=[d['e']-d['s'] for d in dma]; wait=[d['s']-d['q'] for d in dma]
    # DMA overlap with kernels: fraction of DMA time inside kernel spans
    spans=sorted((b['ds'],b['de']) for b in tl)
    # merge
    m=[]
    for s,e in spans:
        if m and s<=m[-1][1]: m[-1][1]=max(m[-1][1],e)
        else: m.append([s,e])
    import bisect
    starts=[x[0] for x in m]
    inside=0;tot=0
    for d in dma:
        tot+=d['e']-d['s']
        i=bisect.bisect_right(starts,d['s'])-1
        if i>=0 and m[i][1]>=d['e']: inside+=d['e']-d['s']
    t0=min(d['s'] for d in dma); t1=max(d['e'] for d in dma)
    # DMA busy (union)
    ds=sorted((d['s'],d['e']) for d in dma); u=0; cur=None
    for s,e in ds:
        if cur and s<=cur[1]: cur[1]=max(cur[1],e)
        else:
            if cur: u+=cur[1]-cur[0]
            cur=[s,e]
    u+=cur[1]-cur[0]
    print(path.split('/')[-1],'chunks',len(dma),'dur med %.0f p90 %.0f us; queued->start med %.0f p90 %.0f; DMA inside kernel spans %.2f; DMA busy (union) %.2f of span'%(q(dur,.5),q(dur,.9),q(wait,.5),q(wait,.9),inside/tot,u/(t1-t0)))
    big=[d for d in dma if d['e']-d['s']>0]
