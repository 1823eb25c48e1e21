# Squashed on 2026-12-01: 0001_initial … 0002_key_and_unread,
# made anew by makemigrations, plus the operations a new database still needs (extensions,
# functions, seed rows). Data fixes for rows of older installations are gone: an
# installation that applied all the replaced migrations takes this one as applied.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    replaces = [
        ('notifications', '0001_initial'),
        ('notifications', '0002_key_and_unread'),
    ]

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Notification',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(auto_now_add=True, verbose_name='created')),
                ('kind', models.CharField(max_length=64, verbose_name='kind')),
                ('title', models.CharField(max_length=200, verbose_name='title')),
                ('body', models.TextField(blank=True, verbose_name='text')),
                ('url', models.CharField(blank=True, max_length=500, verbose_name='link')),
                ('data', models.JSONField(blank=True, default=dict, verbose_name='data')),
                ('read_at', models.DateTimeField(blank=True, null=True, verbose_name='read')),
                ('key', models.CharField(blank=True, db_default='', default='', max_length=200, verbose_name='key')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='notifications', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'notification',
                'verbose_name_plural': 'notifications',
                'ordering': ['id'],
                'indexes': [models.Index(fields=['user', 'id'], name='notification_user_cursor'), models.Index(condition=models.Q(('read_at__isnull', True)), fields=['user', 'id'], name='notification_unread')],
                'constraints': [models.UniqueConstraint(condition=models.Q(('key', ''), _negated=True), fields=('user', 'key'), name='notification_once_per_key')],
            },
        ),
    ]
