"""seat offers to substitutes, missed deadlines in players' records, seats' time banks

Revision ID: b8d4f0a2c6e1
Revises: c4d5e6f7a8b9
Create Date: 2026-12-02 02:45:00.000000

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = 'b8d4f0a2c6e1'
down_revision = 'c4d5e6f7a8b9'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'seat_offers',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.String(length=16), nullable=False),
        sa.Column('seat', sa.String(length=32), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('offered_by', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('status', sa.String(length=10), nullable=False),
        sa.Column('claimed_by', sa.Integer(), nullable=True),
        sa.Column('claimed_key', sa.String(length=64), nullable=True),
        sa.Column('claimed_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('done_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['claimed_by'], ['players.id']),
        sa.ForeignKeyConstraint(['game_id'], ['games.id']),
        sa.ForeignKeyConstraint(['offered_by'], ['players.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('token_hash'))
    op.create_index(op.f('ix_seat_offers_game_id'), 'seat_offers', ['game_id'], unique=False)
    with op.batch_alter_table('players') as batch:
        batch.add_column(sa.Column('missed_deadlines', sa.Integer(), nullable=False,
                                   server_default='0'))
    with op.batch_alter_table('seats') as batch:
        batch.add_column(sa.Column('bank_used', sa.Integer(), nullable=False,
                                   server_default='0'))
        batch.add_column(sa.Column('bank_since', sa.DateTime(timezone=True), nullable=True))


def downgrade():
    with op.batch_alter_table('seats') as batch:
        batch.drop_column('bank_since')
        batch.drop_column('bank_used')
    with op.batch_alter_table('players') as batch:
        batch.drop_column('missed_deadlines')
    op.drop_index(op.f('ix_seat_offers_game_id'), table_name='seat_offers')
    op.drop_table('seat_offers')
