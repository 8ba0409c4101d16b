import re,sys,statistics as st
def parse(path):
    r={'VJTL':[],'VJSV':[],'VJUP':[],'VJST':[]}
    for line in open(path):
        tag=line[:4]
        if tag in r: r[tag].append({k:float(v) for k,v in re.findall(r'(\w+)=([0-9.]+)',line)})
    return r
def q(x,p):
    x=sorted(x); return x[int(p*(len(x)-1))] if x else float('nan')
for path in sys.argv[1:]:
    r=parse(path); tl=r['VJTL']
    off=min(b['dq']-b['q'] for b in tl)   # device us - host us, best estimate
    for b in tl: b['s']=b['ds']-off; b['e']=b['de']-off; b['qq']=b['dq']-off
    tl.sort(key=lambda b:b['s'])
    t0=tl[0]['s']; t1=tl[-1]['e']; span=t1-t0; lo=t0+0.1*span; hi=t1-0.1*span
    mid=[b for b in tl if lo<=b['s']<=hi]
    wall=mid[-1]['e']-mid[0]['s']
    busy=sum(b['e']-b['s'] for b in mid)
    ov=sum(1 for i in range(1,len(tl)) if tl[i]['s']<tl[i-1]['e']-1)
    gaps=[];late=[];early=[]
    for i in range(1,len(tl)):
        b=tl[i];p=tl[i-1]
        if not(lo<=b['s']<=hi): continue
        g=b['s']-p['e']; gaps.append(g)
        if g>20:
            late.append(b['q']-p['e'])
    print(path.split('/')[-1],'batches',len(mid),'mean n %.1f'%st.mean(b['n'] for b in mid),'busy %.3f'%(busy/wall),'overlaps',ov)
    print('  gaps>20us: %d, sum/wall %.3f, median gap %.0f; host enqueue after prev end (median %.0f us, <0 means enqueued before: %d of %d)'%(sum(1 for g in gaps if g>20), sum(g for g in gaps if g>20)/wall, q([g for g in gaps if g>20],.5), q(late,.5), sum(1 for x in late if x<0), len(late)))
    print('  per batch us: in->q %.0f  q->s %.0f kernels %.0f  e->r %.0f  r->out %.0f' % tuple(st.median(v) for v in ([b['q']-b['in'] for b in mid],[b['s']-b['q'] for b in mid],[b['e']-b['s'] for b in mid],[b['r']-b['e'] for b in mid],[b['out']-b['r'] for b in mid])))
    sv=[x for x in r['VJSV'] if lo<=x['start']<=hi]
    print('  service: wait of first request median %.0f us p90 %.0f'%(q([x['start']-x['first'] for x in sv],.5),q([x['start']-x['first'] for x in sv],.9)))
    stg=[x for x in r['VJST'] if lo<=x['start']<=hi]
    if stg:
        print('  staged uploads: n %d; start->copy %.0f, copy %.0f, enqueue %.0f, dma wait %.0f us (medians); p90 total %.0f'%(len(stg), q([x['c0']-x['start'] for x in stg],.5), q([x['c1']-x['c0'] for x in stg],.5), q([x['e1']-x['c1'] for x in stg],.5), q([x['done']-x['e1'] for x in stg],.5), q([x['done']-x['start'] for x in stg],.9)))
    up=[x for x in r['VJUP'] if lo<=x['in']<=hi]
    print('  VJUP total median %.0f'%q([x['out']-x['in'] for x in up],.5))
